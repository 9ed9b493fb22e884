/* TEMPORARY stand-in until numbers.c lands. */
#include "numbers.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int jt_write_long(long v, char *dst) { return snprintf(dst, 21, "%ld", v); }
int jt_write_double(double v, char *dst) {
  char tmp[40]; int p;
  for (p = 1; p <= 17; p++) { snprintf(tmp, sizeof tmp, "%.*e", p - 1, v); if (strtod(tmp, NULL) == v) break; }
  int neg = tmp[0] == '-'; char *s = tmp + neg; char digits[20]; int n = 0; char *e = strchr(s, 'e');
  for (char *c = s; c < e; c++) if (*c != '.') digits[n++] = *c;
  int E = atoi(e + 1); while (n > 1 && digits[n-1] == '0') n--;
  int K = E - n + 1; char *d = dst; if (neg) *d++ = '-';
  if (v == 0) { memcpy(d, "0.0", 3); return (int)(d - dst) + 3; }
  int ae = E < 0 ? -E : E;
  if (K >= 0 && ae < 15) { memcpy(d, digits, n); d += n; memset(d, '0', K); d += K; *d++='.'; *d++='0'; return (int)(d-dst); }
  if (K < 0 && (K > -7 || ae < 10)) { int off = n + K; if (off <= 0) { *d++='0'; *d++='.'; memset(d,'0',-off); d+=-off; memcpy(d,digits,n); d+=n; } else { memcpy(d,digits,off); d+=off; *d++='.'; memcpy(d,digits+off,n-off); d+=n-off; } return (int)(d-dst); }
  *d++ = digits[0]; if (n > 1) { *d++='.'; memcpy(d,digits+1,n-1); d+=n-1; } d += sprintf(d, "e%c%d", E < 0 ? '-' : '+', ae); return (int)(d-dst);
}
