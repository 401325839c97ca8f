/* int64.c - windowed-ABI 64-bit integer helpers that gcc calls for long long arithmetic
 * (__muldi3, __udivdi3, __divdi3, __umoddi3, __moddi3, __ashldi3, __lshrdi3, __ashrdi3),
 * written on 32-bit halves so they never call themselves. Division by zero returns 0
 * (quotient) and the dividend (remainder). Build with -fno-builtin. */
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;
typedef union { u64 v; struct { u32 lo, hi; } w; } dw;

static u64 mul32x32(u32 a, u32 b)
{
	u32 al = a & 0xffff, ah = a >> 16, bl = b & 0xffff, bh = b >> 16;
	u32 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	u32 mid = (ll >> 16) + (lh & 0xffff) + (hl & 0xffff);
	dw r;
	r.w.lo = (ll & 0xffff) | (mid << 16);
	r.w.hi = hh + (lh >> 16) + (hl >> 16) + (mid >> 16);
	return r.v;
}

u64 __muldi3(u64 a, u64 b)
{
	dw x = { .v = a }, y = { .v = b }, r = { .v = mul32x32(x.w.lo, y.w.lo) };
	r.w.hi += x.w.lo * y.w.hi + x.w.hi * y.w.lo;
	return r.v;
}

static u64 udivmod(u64 n, u64 d, u64 *rem)
{
	dw N = { .v = n }, D = { .v = d }, Q = { .v = 0 }, R = { .v = 0 };
	if ((D.w.lo | D.w.hi) == 0) {
		if (rem)
			*rem = n;
		return 0;
	}
	for (int i = 63; i >= 0; i--) {
		u32 bit = i >= 32 ? (N.w.hi >> (i - 32)) & 1 : (N.w.lo >> i) & 1;
		R.w.hi = (R.w.hi << 1) | (R.w.lo >> 31);
		R.w.lo = (R.w.lo << 1) | bit;
		if (R.w.hi > D.w.hi || (R.w.hi == D.w.hi && R.w.lo >= D.w.lo)) {
			u32 borrow = R.w.lo < D.w.lo;
			R.w.lo -= D.w.lo;
			R.w.hi -= D.w.hi + borrow;
			if (i >= 32)
				Q.w.hi |= 1u << (i - 32);
			else
				Q.w.lo |= 1u << i;
		}
	}
	if (rem)
		*rem = R.v;
	return Q.v;
}

static u64 neg64(u64 a)
{
	dw x = { .v = a };
	x.w.lo = ~x.w.lo;
	x.w.hi = ~x.w.hi;
	x.w.lo += 1;
	if (x.w.lo == 0)
		x.w.hi += 1;
	return x.v;
}

static int negative(i64 a)
{
	dw x = { .v = (u64)a };
	return (int)x.w.hi < 0;
}

u64 __udivdi3(u64 a, u64 b) { return udivmod(a, b, 0); }
u64 __umoddi3(u64 a, u64 b) { u64 r; udivmod(a, b, &r); return r; }

i64 __divdi3(i64 a, i64 b)
{
	int neg = negative(a) ^ negative(b);
	u64 q = udivmod(negative(a) ? neg64(a) : (u64)a, negative(b) ? neg64(b) : (u64)b, 0);
	return (i64)(neg ? neg64(q) : q);
}

i64 __moddi3(i64 a, i64 b)
{
	u64 r;
	udivmod(negative(a) ? neg64(a) : (u64)a, negative(b) ? neg64(b) : (u64)b, &r);
	return (i64)(negative(a) ? neg64(r) : r);
}

u64 __ashldi3(u64 a, int s)
{
	dw x = { .v = a }, r;
	if (s == 0)
		return a;
	if (s >= 32) {
		r.w.lo = 0;
		r.w.hi = x.w.lo << (s - 32);
	} else {
		r.w.lo = x.w.lo << s;
		r.w.hi = (x.w.hi << s) | (x.w.lo >> (32 - s));
	}
	return r.v;
}

u64 __lshrdi3(u64 a, int s)
{
	dw x = { .v = a }, r;
	if (s == 0)
		return a;
	if (s >= 32) {
		r.w.hi = 0;
		r.w.lo = x.w.hi >> (s - 32);
	} else {
		r.w.hi = x.w.hi >> s;
		r.w.lo = (x.w.lo >> s) | (x.w.hi << (32 - s));
	}
	return r.v;
}

i64 __ashrdi3(i64 a, int s)
{
	dw x = { .v = (u64)a }, r;
	if (s == 0)
		return a;
	if (s >= 32) {
		r.w.hi = (u32)((int)x.w.hi >> 31);
		r.w.lo = (u32)((int)x.w.hi >> (s - 32));
	} else {
		r.w.hi = (u32)((int)x.w.hi >> s);
		r.w.lo = (x.w.lo >> s) | (x.w.hi << (32 - s));
	}
	return (i64)r.v;
}
