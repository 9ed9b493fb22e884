# frozen_string_literal: true

require "test_helper"

# A large document's buffer often lands on memory the kernel has just taken
# back, and writing it then faults a page at a time. On Linux, Jetson asks
# for the absent pages of a buffer of 128 KiB or more in one call
# (ext/jetson/bytes/fresh_pages.c, MADV_POPULATE_WRITE since Linux 5.14).
# A kernel or build where that quietly does nothing would still pass every
# other test, only slower: here it fails.
class FreshPagesTest < Minitest::Test
  MIB = 1024 * 1024

  def probe(bytes)
    Jetson.send(:fresh_pages_probe, bytes)
  end

  def linux_with_populate?
    return false unless RUBY_PLATFORM.include?("linux")

    major, minor = File.read("/proc/sys/kernel/osrelease")[/\A(\d+)\.(\d+)/].split(".").map(&:to_i)
    (major <=> 5).positive? || (major == 5 && minor >= 14)
  end

  def with_env(name, value)
    before = ENV[name]
    ENV[name] = value
    yield
  ensure
    ENV[name] = before
  end

  def test_the_build_says_how_fresh_pages_come_in
    expected = RUBY_PLATFORM.include?("linux") ? "populate" : "faults"
    assert_equal expected, Jetson::BUILD_INFO.fetch(:fresh_pages)
  end

  def test_a_large_fresh_buffer_is_in_memory_before_it_is_written
    skip "MADV_POPULATE_WRITE needs Linux 5.14 or later (#{RUBY_PLATFORM})" unless linux_with_populate?

    resident, pages = probe(4 * MIB)
    assert_operator pages, :>=, 4 * MIB / 65_536 # any page size up to 64 KiB
    # Every whole page of the buffer; the partial first one is left to the
    # writes, as it may hold another allocation's bytes.
    assert_equal pages - 1, resident
  end

  def test_small_buffers_and_the_switch_leave_pages_to_the_writes
    resident, pages = probe(64 * 1024)
    assert_equal 0, resident, "#{pages} pages of a 64 KiB buffer populated"
    with_env("JETSON_FRESH_PAGES", "0") do
      resident, pages = probe(4 * MIB)
      assert_equal 0, resident, "#{pages} pages populated with JETSON_FRESH_PAGES=0"
    end
  end

  def test_large_documents_are_the_same_bytes_either_way
    piece = "é-\"q\"-#{"x" * 4000}"
    [["1", 300], ["0", 700], [nil, 1500], ["0", 300], [nil, 1200]].each do |setting, count|
      doc = Array.new(count) { |i| i.odd? ? piece : { "i" => i, "s" => piece } }
      with_env("JETSON_FRESH_PAGES", setting) do
        assert_equal JSON.generate(doc), Jetson.generate(doc), "#{count} pieces, JETSON_FRESH_PAGES=#{setting.inspect}"
      end
    end
  end
end
