/* format.cpp - the printf engine (format.h). Integers of up to 64 bits and the exact decimal
 * expansion of doubles use 32-bit operations only: numbers are kept in 16-bit limbs so every
 * partial product and every divide step fits a 32-bit word. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"

namespace q7 {
namespace fmt {

namespace {

struct Spec {
	bool minus = false, plus = false, space = false, hash = false, zero = false;
	int width = -1;
	int prec = -1;
	char len = 0;  /* 0, 'H' (hh), 'h', 'l', 'L' (ll, L), 'j', 'z', 't' */
	char conv = 0;
};

struct Out {
	Sink sink;
	void *ctx;
	int count;

	void put(const char *s, size_t n)
	{
		if (n) {
			sink(ctx, s, n);
			count += int(n);
		}
	}
	void put(char c) { put(&c, 1); }
	void repeat(char c, int n)
	{
		char block[16];
		for (int i = 0; i < 16; i++)
			block[i] = c;
		while (n > 0) {
			int k = n < 16 ? n : 16;
			put(block, size_t(k));
			n -= k;
		}
	}
};

size_t length(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

/* ---- 16-bit-limb naturals ---- */

constexpr int MAX_LIMBS = 168;   /* 2^53 * 5^1074 has 2548 bits */
constexpr int MAX_DIGITS = 800;  /* and 767 decimal digits */

struct Big {
	uint32_t limb[MAX_LIMBS];  /* little-endian, 16 bits each */
	int n;

	void set(uint64_t v)
	{
		n = 0;
		while (v) {
			limb[n++] = uint32_t(v & 0xFFFF);
			v >>= 16;
		}
	}
	void mul_small(uint32_t m) /* m < 2^16 */
	{
		uint32_t carry = 0;
		for (int i = 0; i < n; i++) {
			uint32_t p = limb[i] * m + carry;
			limb[i] = p & 0xFFFF;
			carry = p >> 16;
		}
		if (carry)
			limb[n++] = carry;
	}
	void shl(int bits)
	{
		if (n == 0)
			return;
		int words = bits / 16, b = bits % 16;
		limb[n] = 0;
		for (int i = n; i-- > 0;) {
			uint32_t v = limb[i] << b;
			limb[i + 1] |= v >> 16;
			limb[i] = v & 0xFFFF;
		}
		n++;
		for (int i = n; i-- > 0;)
			limb[i + words] = limb[i];
		for (int i = 0; i < words; i++)
			limb[i] = 0;
		n += words;
		while (n > 0 && limb[n - 1] == 0)
			n--;
	}
	/* Divides by d (< 2^16) in place; the remainder. */
	uint32_t divmod(uint32_t d)
	{
		uint32_t rem = 0;
		for (int i = n; i-- > 0;) {
			uint32_t cur = (rem << 16) | limb[i];
			limb[i] = cur / d;
			rem = cur % d;
		}
		while (n > 0 && limb[n - 1] == 0)
			n--;
		return rem;
	}
};

/* Decimal digits of `b` (destroyed), most significant first, into `out`; their count. */
int to_decimal(Big &b, char *out)
{
	static char rev[MAX_DIGITS + 4];
	int k = 0;
	while (b.n > 0) {
		uint32_t r = b.divmod(10000);
		for (int i = 0; i < 4; i++) {
			rev[k++] = char('0' + r % 10);
			r /= 10;
		}
	}
	while (k > 1 && rev[k - 1] == '0')
		k--;
	if (k == 0)
		rev[k++] = '0';
	for (int i = 0; i < k; i++)
		out[i] = rev[k - 1 - i];
	return k;
}

/* Decimal digits of a 64-bit value, most significant first; their count (0 for 0). */
int u64_digits(uint64_t v, char *out)
{
	if (v == 0)
		return 0;
	if (v >> 32 == 0) {
		char rev[12];
		int k = 0;
		uint32_t w = uint32_t(v);
		while (w) {
			rev[k++] = char('0' + w % 10);
			w /= 10;
		}
		for (int i = 0; i < k; i++)
			out[i] = rev[k - 1 - i];
		return k;
	}
	Big b;
	b.set(v);
	return to_decimal(b, out);
}

/* ---- exact decimal expansion of a double ---- */

/* The value is d[0] d[1] ... d[len-1] with the decimal point after `point` digits (point may be
 * <= 0 or > len); len 0 is zero. */
struct Decimal {
	char d[MAX_DIGITS + 4];
	int len;
	int point;
};

Big scratch;
Decimal dec;

void expand(uint64_t bits, Decimal &out)
{
	uint64_t man = bits & ((uint64_t(1) << 52) - 1);
	int exp = int((bits >> 52) & 0x7FF);
	if (exp != 0)
		man |= uint64_t(1) << 52;
	int e = exp == 0 ? -1074 : exp - 1075;
	if (man == 0) {
		out.len = 0;
		out.point = 1;
		return;
	}
	while ((man & 1) == 0) {
		man >>= 1;
		e++;
	}
	scratch.set(man);
	int frac = 0;
	if (e >= 0) {
		scratch.shl(e);
	} else {
		frac = -e;
		int k = frac;
		for (; k >= 6; k -= 6)
			scratch.mul_small(15625);
		uint32_t p = 1;
		while (k-- > 0)
			p *= 5;
		if (p > 1)
			scratch.mul_small(p);
	}
	out.len = to_decimal(scratch, out.d);
	out.point = out.len - frac;
	while (out.len > 0 && out.d[out.len - 1] == '0')
		out.len--;
}

/* Rounds to the first `keep` digits (half to even on an exact tie). */
void round_to(Decimal &v, int keep)
{
	if (keep >= v.len)
		return;
	if (keep < 0) {
		v.len = 0;
		return;
	}
	char next = v.d[keep];
	bool up;
	if (next != '5') {
		up = next > '5';
	} else {
		bool rest = false;
		for (int i = keep + 1; i < v.len; i++)
			if (v.d[i] != '0')
				rest = true;
		up = rest || (keep > 0 && ((v.d[keep - 1] - '0') & 1));
	}
	v.len = keep;
	if (!up)
		return;
	int i = keep - 1;
	while (i >= 0 && v.d[i] == '9')
		v.d[i--] = '0';
	if (i >= 0) {
		v.d[i]++;
	} else {
		v.d[0] = '1';
		if (keep == 0)
			v.len = 1;
		v.point++;
	}
}

char digit_at(const Decimal &v, int i) { return i >= 0 && i < v.len ? v.d[i] : '0'; }

/* Emits a fixed-notation body ("123.4500") with `prec` fraction digits. */
template <class Emit> void body_f(const Decimal &v, int prec, bool hash, Emit &&emit)
{
	if (v.len == 0 || v.point <= 0) {
		emit('0');
	} else {
		for (int i = 0; i < v.point; i++)
			emit(digit_at(v, i));
	}
	if (prec > 0 || hash)
		emit('.');
	for (int i = 0; i < prec; i++)
		emit(v.len == 0 ? '0' : digit_at(v, v.point + i));
}

/* Emits an exponent-notation body ("1.2345e+02"). */
template <class Emit> void body_e(const Decimal &v, int prec, bool hash, char e, Emit &&emit)
{
	emit(v.len == 0 ? '0' : v.d[0]);
	if (prec > 0 || hash)
		emit('.');
	for (int i = 1; i <= prec; i++)
		emit(digit_at(v, i));
	int x = v.len == 0 ? 0 : v.point - 1;
	emit(e);
	emit(x < 0 ? '-' : '+');
	if (x < 0)
		x = -x;
	char buf[6];
	int k = 0;
	do {
		buf[k++] = char('0' + x % 10);
		x /= 10;
	} while (x);
	if (k < 2)
		buf[k++] = '0';
	while (k > 0)
		emit(buf[--k]);
}

void pad_and_emit(Out &o, const Spec &s, const char *sign, int body_len, bool zero_pad,
		  void (*emit_body)(Out &o, const void *arg), const void *arg)
{
	int sign_len = int(length(sign));
	int pad = s.width > sign_len + body_len ? s.width - sign_len - body_len : 0;
	if (!s.minus && !zero_pad)
		o.repeat(' ', pad);
	o.put(sign, size_t(sign_len));
	if (!s.minus && zero_pad)
		o.repeat('0', pad);
	emit_body(o, arg);
	if (s.minus)
		o.repeat(' ', pad);
}

struct FloatJob {
	const Decimal *v;
	int prec;
	bool hash;
	char style;   /* 'f' or 'e' */
	char e;       /* 'e' or 'E' */
};

template <class Emit> void float_body(const FloatJob &j, Emit &&emit)
{
	if (j.style == 'f')
		body_f(*j.v, j.prec, j.hash, emit);
	else
		body_e(*j.v, j.prec, j.hash, j.e, emit);
}

/* %g without '#': the fraction digits left once trailing zeros are dropped. */
int trimmed_prec(const Decimal &v, char style, int prec)
{
	int last = v.len - 1;
	while (last >= 0 && v.d[last] == '0')
		last--;
	int needed = style == 'f' ? last + 1 - v.point : last;
	if (needed < 0)
		needed = 0;
	return needed < prec ? needed : prec;
}

void format_float(Out &o, const Spec &s, double value)
{
	uint64_t bits;
	__builtin_memcpy(&bits, &value, 8);
	bool neg = (bits >> 63) != 0;
	const char *sign = neg ? "-" : s.plus ? "+" : s.space ? " " : "";
	bool upper = s.conv == 'E' || s.conv == 'F' || s.conv == 'G';
	uint64_t abs = bits & ~(uint64_t(1) << 63);
	if (abs >= (uint64_t(0x7FF) << 52)) {
		const char *t = abs == (uint64_t(0x7FF) << 52) ? (upper ? "INF" : "inf") : (upper ? "NAN" : "nan");
		pad_and_emit(o, s, sign, 3, false, [](Out &out, const void *a) { out.put(static_cast<const char *>(a), 3); }, t);
		return;
	}
	int prec = s.prec < 0 ? 6 : s.prec;
	expand(abs, dec);
	FloatJob j{&dec, prec, s.hash, 'f', upper ? 'E' : 'e'};
	char c = char(s.conv | 0x20);
	if (c == 'f') {
		round_to(dec, dec.point + prec);
	} else if (c == 'e') {
		j.style = 'e';
		round_to(dec, prec + 1);
	} else {
		int p = prec == 0 ? 1 : prec;
		round_to(dec, p);
		int x = dec.len == 0 ? 0 : dec.point - 1;
		if (p > x && x >= -4) {
			j.prec = p - 1 - x;
		} else {
			j.style = 'e';
			j.prec = p - 1;
		}
		if (!s.hash)
			j.prec = trimmed_prec(dec, j.style, j.prec);
	}
	int body_len = 0;
	float_body(j, [&](char) { body_len++; });
	pad_and_emit(o, s, sign, body_len, s.zero && !s.minus,
		     [](Out &out, const void *a) {
			     const FloatJob &job = *static_cast<const FloatJob *>(a);
			     float_body(job, [&](char ch) { out.put(ch); });
		     },
		     &j);
}

struct IntJob {
	const char *digits;
	int ndigits;
	int zeros;  /* precision zeros before the digits */
};

void format_int(Out &o, const Spec &s, uint64_t mag, bool neg)
{
	char c = s.conv;
	char buf[24];
	int n = 0;
	if (c == 'd' || c == 'i' || c == 'u') {
		n = u64_digits(mag, buf);
	} else {
		int shift = c == 'o' ? 3 : 4;
		const char *hex = c == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
		char rev[24];
		uint64_t v = mag;
		while (v) {
			rev[n++] = hex[uint32_t(v) & ((1u << shift) - 1)];
			v >>= shift;
		}
		for (int i = 0; i < n; i++)
			buf[i] = rev[n - 1 - i];
	}
	int prec = s.prec < 0 ? 1 : s.prec;
	int zeros = prec > n ? prec - n : 0;
	if (c == 'o' && s.hash && zeros == 0 && (n == 0 || buf[0] != '0'))
		zeros = 1;
	char sign[3] = {0, 0, 0};
	if (c == 'd' || c == 'i') {
		if (neg)
			sign[0] = '-';
		else if (s.plus)
			sign[0] = '+';
		else if (s.space)
			sign[0] = ' ';
	} else if ((c == 'x' || c == 'X') && s.hash && mag != 0) {
		sign[0] = '0';
		sign[1] = c;
	}
	IntJob j{buf, n, zeros};
	pad_and_emit(o, s, sign, zeros + n, s.zero && !s.minus && s.prec < 0,
		     [](Out &out, const void *a) {
			     const IntJob &job = *static_cast<const IntJob *>(a);
			     out.repeat('0', job.zeros);
			     out.put(job.digits, size_t(job.ndigits));
		     },
		     &j);
}

void format_text(Out &o, const Spec &s, const char *text, size_t n)
{
	struct Job {
		const char *t;
		size_t n;
	} j{text, n};
	Spec plain = s;
	pad_and_emit(o, plain, "", int(n), false,
		     [](Out &out, const void *a) {
			     const Job &job = *static_cast<const Job *>(a);
			     out.put(job.t, job.n);
		     },
		     &j);
}

} // namespace

int vformat(Sink sink, void *ctx, const char *f, va_list ap)
{
	Out o{sink, ctx, 0};
	va_list args;
	va_copy(args, ap);
	while (*f) {
		if (*f != '%') {
			const char *run = f;
			while (*f && *f != '%')
				f++;
			o.put(run, size_t(f - run));
			continue;
		}
		const char *start = f++;
		Spec s;
		for (;; f++) {
			if (*f == '-')
				s.minus = true;
			else if (*f == '+')
				s.plus = true;
			else if (*f == ' ')
				s.space = true;
			else if (*f == '#')
				s.hash = true;
			else if (*f == '0')
				s.zero = true;
			else
				break;
		}
		if (*f == '*') {
			s.width = va_arg(args, int);
			if (s.width < 0) {
				s.minus = true;
				s.width = -s.width;
			}
			f++;
		} else if (*f >= '0' && *f <= '9') {
			s.width = 0;
			while (*f >= '0' && *f <= '9')
				s.width = s.width * 10 + (*f++ - '0');
		}
		if (*f == '.') {
			f++;
			if (*f == '*') {
				s.prec = va_arg(args, int);
				if (s.prec < 0)
					s.prec = -1;
				f++;
			} else {
				s.prec = 0;
				while (*f >= '0' && *f <= '9')
					s.prec = s.prec * 10 + (*f++ - '0');
			}
		}
		switch (*f) {
		case 'h':
			s.len = f[1] == 'h' ? 'H' : 'h';
			f += f[1] == 'h' ? 2 : 1;
			break;
		case 'l':
			s.len = f[1] == 'l' ? 'L' : 'l';
			f += f[1] == 'l' ? 2 : 1;
			break;
		case 'L':
		case 'j':
		case 'z':
		case 't':
			s.len = *f == 'L' ? 'L' : *f;
			f++;
			break;
		default:
			break;
		}
		s.conv = *f;
		if (*f)
			f++;
		switch (s.conv) {
		case 'd':
		case 'i': {
			int64_t v;
			switch (s.len) {
			case 'H': v = (signed char)va_arg(args, int); break;
			case 'h': v = (short)va_arg(args, int); break;
			case 'l': v = va_arg(args, long); break;
			case 'L': v = va_arg(args, long long); break;
			case 'j': v = va_arg(args, long long); break;
			case 'z': v = sizeof(size_t) == 8 ? int64_t(va_arg(args, size_t)) : int64_t(int32_t(va_arg(args, size_t))); break;
			case 't': v = va_arg(args, ptrdiff_t); break;
			default: v = va_arg(args, int); break;
			}
			format_int(o, s, v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v), v < 0);
			break;
		}
		case 'u':
		case 'o':
		case 'x':
		case 'X': {
			uint64_t v;
			switch (s.len) {
			case 'H': v = (unsigned char)va_arg(args, unsigned); break;
			case 'h': v = (unsigned short)va_arg(args, unsigned); break;
			case 'l': v = va_arg(args, unsigned long); break;
			case 'L': v = va_arg(args, unsigned long long); break;
			case 'j': v = va_arg(args, unsigned long long); break;
			case 'z': v = va_arg(args, size_t); break;
			case 't': v = uint64_t(va_arg(args, ptrdiff_t)); break;
			default: v = va_arg(args, unsigned); break;
			}
			if (sizeof(ptrdiff_t) == 4 && s.len == 't')
				v &= 0xFFFFFFFFu;
			format_int(o, s, v, false);
			break;
		}
		case 'p': {
			void *p = va_arg(args, void *);
			if (!p) {
				format_text(o, s, "(nil)", 5);
			} else {
				Spec h = s;
				h.conv = 'x';
				h.hash = true;
				format_int(o, h, uint64_t(uintptr_t(p)), false);
			}
			break;
		}
		case 'c': {
			char ch = char(va_arg(args, int));
			format_text(o, s, &ch, 1);
			break;
		}
		case 's': {
			const char *t = va_arg(args, const char *);
			if (!t)
				t = "(null)";
			size_t n = 0;
			while (t[n] && (s.prec < 0 || n < size_t(s.prec)))
				n++;
			format_text(o, s, t, n);
			break;
		}
		case 'e':
		case 'E':
		case 'f':
		case 'F':
		case 'g':
		case 'G': {
			double v = s.len == 'L' ? double(va_arg(args, long double)) : va_arg(args, double);
			format_float(o, s, v);
			break;
		}
		case '%':
			o.put('%');
			break;
		default:
			/* Unknown conversion: copied through as written. */
			o.put(start, size_t(f - start));
			break;
		}
	}
	va_end(args);
	return o.count;
}

namespace {
struct Buf {
	char *p;
	size_t room; /* bytes that may still be written, the terminator excluded */
};
void buf_sink(void *ctx, const char *s, size_t n)
{
	Buf &b = *static_cast<Buf *>(ctx);
	size_t k = n < b.room ? n : b.room;
	for (size_t i = 0; i < k; i++)
		b.p[i] = s[i];
	b.p += k;
	b.room -= k;
}
} // namespace

int vsnformat(char *buf, size_t n, const char *f, va_list ap)
{
	Buf b{buf, n ? n - 1 : 0};
	int count = vformat(buf_sink, &b, f, ap);
	if (n)
		*b.p = 0;
	return count;
}

} // namespace fmt
} // namespace q7
