// c10/util/ArrayRef.h - a non-owning view of contiguous elements (`c10::ArrayRef<T>`,
// `IntArrayRef` for sizes and strides). It refers to memory it does not own: a view of a braced
// list lives until the end of the full expression, a view of a tensor's sizes as long as the
// tensor.
#ifndef Q7_C10_ARRAYREF_H
#define Q7_C10_ARRAYREF_H

#include <stddef.h>
#include <stdint.h>
#include <initializer_list>

namespace c10 {

template <typename T> class ArrayRef {
	const T *data_;
	size_t len_;

public:
	typedef const T *iterator;
	typedef const T *const_iterator;
	typedef size_t size_type;
	typedef T value_type;

	constexpr ArrayRef() : data_(nullptr), len_(0) {}
	constexpr ArrayRef(const T &one) : data_(&one), len_(1) {}
	constexpr ArrayRef(const T *data, size_t len) : data_(data), len_(len) {}
	constexpr ArrayRef(const T *begin, const T *end) : data_(begin), len_(size_t(end - begin)) {}
	template <size_t N> constexpr ArrayRef(const T (&a)[N]) : data_(a), len_(N) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
	// A view of the list's array, which lives until the end of the full expression.
	constexpr ArrayRef(const std::initializer_list<T> &il)
		: data_(il.begin() == il.end() ? nullptr : il.begin()), len_(il.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

	constexpr const T *begin() const { return data_; }
	constexpr const T *end() const { return data_ + len_; }
	constexpr const T *data() const { return data_; }
	constexpr size_t size() const { return len_; }
	constexpr bool empty() const { return len_ == 0; }
	constexpr const T &operator[](size_t i) const { return data_[i]; }
	constexpr const T &front() const { return data_[0]; }
	constexpr const T &back() const { return data_[len_ - 1]; }
	constexpr ArrayRef slice(size_t start, size_t n) const { return ArrayRef(data_ + start, n); }
	constexpr ArrayRef slice(size_t start) const { return ArrayRef(data_ + start, len_ - start); }

	bool equals(ArrayRef o) const
	{
		if (len_ != o.len_)
			return false;
		for (size_t i = 0; i < len_; i++)
			if (!(data_[i] == o.data_[i]))
				return false;
		return true;
	}
};

template <typename T> bool operator==(ArrayRef<T> a, ArrayRef<T> b) { return a.equals(b); }
template <typename T> bool operator!=(ArrayRef<T> a, ArrayRef<T> b) { return !a.equals(b); }

typedef ArrayRef<int64_t> IntArrayRef;

// C-order (row-major) strides of a contiguous tensor with `sizes`, written to `out`; a dim of
// size 0 or 1 takes the stride its inner neighbours give, as PyTorch does.
inline void contiguous_strides(IntArrayRef sizes, int64_t *out)
{
	int64_t s = 1;
	for (size_t i = sizes.size(); i-- > 0;) {
		out[i] = s;
		s *= sizes[i] > 1 ? sizes[i] : 1;
	}
}

// Product of the dims (1 for none).
inline int64_t multiply_integers(IntArrayRef sizes)
{
	int64_t n = 1;
	for (size_t i = 0; i < sizes.size(); i++)
		n *= sizes[i];
	return n;
}

} // namespace c10

#endif
