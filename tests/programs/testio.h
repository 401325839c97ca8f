/* testio.h - minimal output for lockstep test programs (semihosting write). */
#ifndef TESTIO_H
#define TESTIO_H
#include "semihost.h"

static void put_str(const char *s)
{
	int n = 0;
	while (s[n])
		n++;
	xt_write(1, s, n);
}

static void put_hex(const char *label, unsigned int v)
{
	char buf[24];
	int i = 0;
	while (label[i] && i < 12) {
		buf[i] = label[i];
		i++;
	}
	buf[i++] = '=';
	for (int k = 7; k >= 0; k--) {
		unsigned int d = (v >> (k * 4)) & 15;
		buf[i++] = d < 10 ? '0' + d : 'a' + d - 10;
	}
	buf[i++] = '\n';
	xt_write(1, buf, i);
}
#endif
