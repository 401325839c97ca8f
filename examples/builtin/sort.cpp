// The builtin SORT and TOPK ops (examples/builtin/README.md has the schemas, the order, tie and
// NaN rules and the algorithm).
//
// Every row of the last dimension is sorted independently. An element becomes a record, a
// 64-bit word `key << 32 | index` whose unsigned order is the requested order: `key` maps the
// element's bits to an unsigned 32-bit value ordered as PyTorch orders the dtype (NaN above +inf,
// -0 equal to +0), complemented for a descending sort, and `index` is its position in the row.
// Records are unique, so any sort of them is stable: equal elements keep their input order in
// both directions. A row of at most BLOCK elements is sorted in TCM; a longer one is cut into
// sorted runs of BLOCK records written to an HBM scratch tensor, which merge passes through TCM
// double until one run is left; the last pass writes the output directly (and stops after k for
// topk). The rows are split over the library's cores, get_cpu_count() contiguous slices.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

namespace {

typedef uint64_t Rec;

// Records per TCM buffer: 512 records of 8 bytes, three buffers of 4 KiB.
constexpr uint32_t BLOCK = 512;
constexpr uint32_t BUF_BYTES = BLOCK * sizeof(Rec);

enum Kind { F32, F16, BF16, I32, I16, I8, U8 };

struct Type {
	Kind kind;
	uint32_t size;
};

[[noreturn]] void fail(const char *op, const char *what)
{
	printf("%s: %s\n", op, what);
	abort();
}

Type type_of(const char *op, c10::ScalarType t)
{
	switch (t) {
	case torch::kFloat: return Type{F32, 4};
	case torch::kHalf: return Type{F16, 2};
	case torch::kBFloat16: return Type{BF16, 2};
	case torch::kInt: return Type{I32, 4};
	case torch::kShort: return Type{I16, 2};
	case torch::kChar: return Type{I8, 1};
	case torch::kByte: return Type{U8, 1};
	default: fail(op, "unsupported dtype (float32, bfloat16, float16, int32, int16, int8, uint8)");
	}
}

// The ascending key of a 16-bit float whose exponent mask is `inf` (0x7c00 float16, 0x7f80
// bfloat16): NaN 0xffff, both zeros 0x8000, otherwise the sign-flipped bits.
inline uint32_t key16(uint32_t b, uint32_t inf)
{
	uint32_t mag = b & 0x7fffu;
	if (mag > inf)
		return 0xffffu;
	if (mag == 0)
		return 0x8000u;
	return (b & 0x8000u) ? (~b & 0xffffu) : (b | 0x8000u);
}

// The ascending key of element bits `b` (zero-extended).
inline uint32_t key_of(Kind k, uint32_t b)
{
	switch (k) {
	case F32: {
		uint32_t mag = b & 0x7fffffffu;
		if (mag > 0x7f800000u)
			return 0xffffffffu;
		if (mag == 0)
			return 0x80000000u;
		return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
	}
	case F16: return key16(b, 0x7c00u);
	case BF16: return key16(b, 0x7f80u);
	case I32: return b ^ 0x80000000u;
	case I16: return (b ^ 0x8000u) & 0xffffu;
	case I8: return (b ^ 0x80u) & 0xffu;
	case U8: return b;
	}
	return b;
}

// Whether ascending key `key` stands for elements whose bits it does not determine: the zeros
// (either sign) and the NaNs (any payload) of the float dtypes.
inline bool ambiguous(Kind k, uint32_t key)
{
	switch (k) {
	case F32: return key == 0x80000000u || key == 0xffffffffu;
	case F16:
	case BF16: return key == 0x8000u || key == 0xffffu;
	default: return false;
	}
}

// The element bits of an unambiguous ascending key.
inline uint32_t bits_of(Kind k, uint32_t key)
{
	switch (k) {
	case F32: return (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
	case F16:
	case BF16: return (key & 0x8000u) ? (key & 0x7fffu) : (~key & 0xffffu);
	case I32: return key ^ 0x80000000u;
	case I16: return key ^ 0x8000u;
	case I8: return key ^ 0x80u;
	case U8: return key;
	}
	return key;
}

inline uint32_t load_bits(const uint8_t *p, uint32_t size, uint32_t i)
{
	if (size == 4)
		return ((const uint32_t *)p)[i];
	if (size == 2)
		return ((const uint16_t *)p)[i];
	return p[i];
}

inline void store_bits(uint8_t *p, uint32_t size, uint32_t i, uint32_t b)
{
	if (size == 4)
		((uint32_t *)p)[i] = b;
	else if (size == 2)
		((uint16_t *)p)[i] = uint16_t(b);
	else
		p[i] = uint8_t(b);
}

// Merges the sorted a[0, na) and b[0, nb) into out.
void merge(const Rec *a, uint32_t na, const Rec *b, uint32_t nb, Rec *out)
{
	uint32_t i = 0, j = 0, o = 0;
	while (i < na && j < nb)
		out[o++] = (b[j] < a[i]) ? b[j++] : a[i++];
	while (i < na)
		out[o++] = a[i++];
	while (j < nb)
		out[o++] = b[j++];
}

// Sorts r[0, n) using tmp[0, n); returns whichever of the two holds the result. Insertion sort
// of runs of 16, then bottom-up merge passes between the two buffers.
Rec *sort_block(Rec *r, Rec *tmp, uint32_t n)
{
	constexpr uint32_t RUN = 16;
	for (uint32_t lo = 0; lo < n; lo += RUN) {
		uint32_t hi = lo + RUN < n ? lo + RUN : n;
		for (uint32_t i = lo + 1; i < hi; i++) {
			Rec v = r[i];
			uint32_t j = i;
			while (j > lo && v < r[j - 1]) {
				r[j] = r[j - 1];
				j--;
			}
			r[j] = v;
		}
	}
	Rec *src = r, *dst = tmp;
	for (uint32_t w = RUN; w < n; w *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * w) {
			uint32_t mid = lo + w < n ? lo + w : n;
			uint32_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			merge(src + lo, mid - lo, src + mid, hi - mid, dst + lo);
		}
		Rec *t = src;
		src = dst;
		dst = t;
	}
	return src;
}

// One op invocation: the input, the output and what to write.
struct Job {
	const char *op;
	const torch::Tensor *in;
	torch::Tensor *out;
	Type type;
	bool descending;
	bool indices;     // write int32 indices instead of values
	uint64_t n;       // row length
	uint64_t out_len; // elements written per row (n, or k for topk)
	uint8_t *one;     // a TCM slot for one element read back from the input
};

// Writes records rec[0, cnt) as output elements [pos, pos + cnt) of row `row`, converting in
// place (an output element is at most 4 bytes, a record 8).
void emit(const Job &j, Rec *rec, uint32_t cnt, uint64_t row, uint64_t pos)
{
	uint8_t *o = (uint8_t *)rec;
	uint32_t osize = j.indices ? 4 : j.type.size;
	auto in = j.in->tcm_accessor();
	for (uint32_t i = 0; i < cnt; i++) {
		Rec r = rec[i];
		uint32_t idx = uint32_t(r);
		uint32_t key = uint32_t(r >> 32);
		uint32_t b;
		if (j.indices) {
			b = idx;
		} else {
			if (j.descending)
				key = ~key;
			if (ambiguous(j.type.kind, key)) {
				in.tensor_to_tcm<uint8_t>(j.one, (row * j.n + idx) * j.type.size, j.type.size);
				b = load_bits(j.one, j.type.size, 0);
			} else {
				b = bits_of(j.type.kind, key);
			}
		}
		store_bits(o, osize, i, b);
	}
	auto out = j.out->tcm_accessor();
	out.tcm_to_tensor<uint8_t>(o, (row * j.out_len + pos) * osize, uint64_t(cnt) * osize);
}

// Reads elements [first, first + cnt) of row `row` into records in `rec`, `raw` staging them.
void load_records(const Job &j, uint64_t row, uint32_t first, uint32_t cnt, Rec *rec, uint8_t *raw)
{
	auto in = j.in->tcm_accessor();
	in.tensor_to_tcm<uint8_t>(raw, (row * j.n + first) * j.type.size, uint64_t(cnt) * j.type.size);
	uint32_t flip = j.descending ? 0xffffffffu : 0;
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t key = key_of(j.type.kind, load_bits(raw, j.type.size, i)) ^ flip;
		rec[i] = (Rec(key) << 32) | (first + i);
	}
}

// A run of records in an HBM scratch tensor read BLOCK records at a time into a TCM window.
struct Reader {
	torch::Tensor *t;
	Rec *buf;
	uint64_t next, end; // records [next, end) still in HBM
	uint32_t pos, len;  // buf[pos, len) not yet taken

	void fill()
	{
		uint64_t left = end - next;
		len = left > BLOCK ? BLOCK : uint32_t(left);
		pos = 0;
		if (len) {
			auto a = t->tcm_accessor();
			a.tensor_to_tcm<uint32_t>((uint32_t *)buf, 2 * next, 2 * uint64_t(len));
		}
		next += len;
	}
	bool empty() { return pos == len && next == end; }
	Rec head() { return buf[pos]; }
	void take()
	{
		if (++pos == len && next < end)
			fill();
	}
};

// Sorts row `row` (j.n > BLOCK) through the scratch tensors s0 and s1, then emits it.
void sort_long_row(const Job &j, uint64_t row, Rec *b0, Rec *b1, Rec *b2, torch::Tensor &s0, torch::Tensor &s1)
{
	uint64_t n = j.n;
	// Runs of BLOCK sorted records.
	for (uint64_t first = 0; first < n; first += BLOCK) {
		uint32_t cnt = n - first > BLOCK ? BLOCK : uint32_t(n - first);
		load_records(j, row, uint32_t(first), cnt, b0, (uint8_t *)b1);
		Rec *sorted = sort_block(b0, b1, cnt);
		auto a = s0.tcm_accessor();
		a.tcm_to_tensor<uint32_t>((const uint32_t *)sorted, 2 * first, 2 * uint64_t(cnt));
	}
	torch::Tensor *src = &s0, *dst = &s1;
	for (uint64_t w = BLOCK;; w *= 2) {
		bool last = 2 * w >= n;
		uint64_t limit = last ? j.out_len : n;
		for (uint64_t lo = 0; lo < n; lo += 2 * w) {
			uint64_t mid = lo + w < n ? lo + w : n;
			uint64_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			Reader a{src, b0, lo, mid, 0, 0};
			Reader b{src, b1, mid, hi, 0, 0};
			a.fill();
			b.fill();
			uint64_t o = lo;
			uint32_t fill = 0;
			while (o + fill < hi && o + fill < limit) {
				if (b.empty() || (!a.empty() && a.head() < b.head())) {
					b2[fill++] = a.head();
					a.take();
				} else {
					b2[fill++] = b.head();
					b.take();
				}
				if (fill == BLOCK) {
					if (last) {
						emit(j, b2, fill, row, o);
					} else {
						auto d = dst->tcm_accessor();
						d.tcm_to_tensor<uint32_t>((const uint32_t *)b2, 2 * o, 2 * uint64_t(fill));
					}
					o += fill;
					fill = 0;
				}
			}
			if (fill) {
				if (last) {
					emit(j, b2, fill, row, o);
				} else {
					auto d = dst->tcm_accessor();
					d.tcm_to_tensor<uint32_t>((const uint32_t *)b2, 2 * o, 2 * uint64_t(fill));
				}
			}
		}
		if (last)
			break;
		torch::Tensor *t = src;
		src = dst;
		dst = t;
	}
}

// Checks the output against what the op writes, then sorts this core's rows.
torch::Tensor run(const char *op, const torch::Tensor &x, bool descending, bool indices, int64_t k, bool topk)
{
	Type type = type_of(op, x.scalar_type());
	torch::Tensor out = get_dst_tensor();
	int64_t rank = x.dim();
	uint64_t n = rank == 0 ? 1 : uint64_t(x.size(-1));
	if (topk && (k < 0 || uint64_t(k) > n))
		fail(op, "selected index k out of range");
	uint64_t out_len = topk ? uint64_t(k) : n;
	if (out.scalar_type() != (indices ? torch::kInt : x.scalar_type()))
		fail(op, indices ? "the output must be int32" : "the output must have the input's dtype");
	bool shape_ok = out.dim() == rank;
	for (int64_t d = 0; shape_ok && d < rank; d++)
		shape_ok = out.size(d) == (d == rank - 1 ? int64_t(out_len) : x.size(d));
	if (rank == 0)
		shape_ok = shape_ok && out_len == 1;
	if (!shape_ok)
		fail(op, topk ? "the output's shape must be the input's with k as its last dimension"
			      : "the output's shape must be the input's");
	if (n > 0x7fffffffu)
		fail(op, "a row is longer than 2^31 - 1 elements");
	uint64_t rows = n == 0 ? 0 : uint64_t(x.numel()) / n;
	if (out_len == 0 || rows == 0)
		return out;

	uint32_t cpu = get_cpu_id(), cpus = get_cpu_count();
	uint64_t per = rows / cpus, extra = rows % cpus;
	uint64_t first = cpu * per + (cpu < extra ? cpu : extra);
	uint64_t mine = per + (cpu < extra ? 1 : 0);
	if (mine == 0)
		return out;

	uint8_t *pool = (uint8_t *)torch::neuron::tcm_malloc(3 * BUF_BYTES + 16);
	if (pool == nullptr)
		fail(op, "tcm_malloc of the sort buffers failed");
	Rec *b0 = (Rec *)pool, *b1 = (Rec *)(pool + BUF_BYTES), *b2 = (Rec *)(pool + 2 * BUF_BYTES);
	Job j{op, &x, &out, type, descending, indices, n, out_len, pool + 3 * BUF_BYTES};

	if (n <= BLOCK) {
		for (uint64_t row = first; row < first + mine; row++) {
			load_records(j, row, 0, uint32_t(n), b0, (uint8_t *)b1);
			Rec *sorted = sort_block(b0, b1, uint32_t(n));
			emit(j, sorted, uint32_t(out_len), row, 0);
		}
	} else {
		torch::Tensor s0 = torch::empty({int64_t(2 * n)}, torch::kInt);
		torch::Tensor s1 = torch::empty({int64_t(2 * n)}, torch::kInt);
		for (uint64_t row = first; row < first + mine; row++)
			sort_long_row(j, row, b0, b1, b2, s0, s1);
	}
	torch::neuron::tcm_free(pool);
	return out;
}

} // namespace

torch::Tensor sort_values(const torch::Tensor &x, bool descending)
{
	return run("sort_values", x, descending, false, 0, false);
}

torch::Tensor sort_indices(const torch::Tensor &x, bool descending)
{
	return run("sort_indices", x, descending, true, 0, false);
}

torch::Tensor topk_values(const torch::Tensor &x, int64_t k, bool largest)
{
	return run("topk_values", x, largest, false, k, true);
}

torch::Tensor topk_indices(const torch::Tensor &x, int64_t k, bool largest)
{
	return run("topk_indices", x, largest, true, k, true);
}
