// ATen/core/TensorStreamAccessor.h - sequential access to a tensor's elements in storage
// (flattened) order: `TensorReadStreamAccessor<T>` from `Tensor::read_stream_accessor<T>()`,
// `TensorWriteStreamAccessor<T>` from `Tensor::write_stream_accessor<T>()`
// (examples/sdk/README.md "Stream accessors and coherence").
//
// A stream opened while fewer than Q7_STREAM_BUFFERS (4) other streams hold a buffer takes a
// 4 KiB buffer from the 16 KiB TCM pool (the pool `tcm_malloc` uses) and moves the tensor
// through it by SDMA in two 2 KiB halves, one filling or draining while the kernel walks the
// other: an element is then a load or a store in local memory. Any further stream reads or
// writes each element in HBM directly, at the element accessor's speed. `read()`/`write()`
// stay inline while the current half lasts; the runtime (rt/customop/stream.cpp) refills,
// flushes and stops the kernel on a read or write past the end or on a closed stream.
//
// `close()` (or destruction) writes back what a write stream holds, waits for its transfers
// and gives the buffer back; it returns 0, or -1 when the stream was already closed. Streams
// move but do not copy.
#ifndef Q7_ATEN_TENSORSTREAMACCESSOR_H
#define Q7_ATEN_TENSORSTREAMACCESSOR_H

#include <stdint.h>
#include <ATen/core/TensorImpl.h>
#include <c10/core/ScalarType.h>
#include <q7/runtime.h>

namespace at {

namespace detail {

// A stream's state. `cur`..`end` are the bytes the kernel may read or write before the runtime
// has to refill or flush; both are null once the stream is closed.
struct Stream {
	uint8_t *cur;
	uint8_t *end;
	TensorImpl *impl;     // the tensor, held open; null once closed
	uint64_t base;        // its storage address
	uint64_t total;       // its storage bytes
	uint64_t pos;         // bytes of the storage up to `end`
	uint64_t requested;   // read streams: bytes requested into the buffer so far
	uint32_t buf;         // the TCM buffer, 0 for an unbuffered stream
	uint32_t pending[2];  // SDMA count each half's transfer completes at, 0 = none
	uint8_t kind;         // Q7_ACC_READ_STREAM or Q7_ACC_WRITE_STREAM
	uint8_t local;        // the storage is core-local
	uint8_t half;         // the half `cur` walks
	uint8_t started;      // a read stream has handed out its first half
	uint8_t arg;          // the tensor's argument index, for messages after close
	uint8_t elem;         // bytes per element
	uint8_t pad[2];
};

// Opens `s` on `impl` (element type `elem`, kind Q7_ACC_READ_STREAM or _WRITE_STREAM).
void stream_open(Stream *s, TensorImpl *impl, c10::ScalarType elem, uint32_t kind);
// Called when cur == end: the next elements. Stops the kernel past the end or once closed.
void stream_next(Stream *s);
// 0, or -1 when already closed.
int stream_close(Stream *s);
// Takes `src`'s stream over; `src` is left closed.
void stream_move(Stream *dst, Stream *src);

} // namespace detail

template <typename T> class TensorReadStreamAccessor {
public:
	// What Tensor::read_stream_accessor<T>() makes.
	explicit TensorReadStreamAccessor(detail::TensorImpl *impl)
	{
		detail::stream_open(&s_, impl, c10::CppTypeToScalarType<T>::value, Q7_ACC_READ_STREAM);
	}
	TensorReadStreamAccessor(TensorReadStreamAccessor &&o) noexcept { detail::stream_move(&s_, &o.s_); }
	TensorReadStreamAccessor(const TensorReadStreamAccessor &) = delete;
	TensorReadStreamAccessor &operator=(const TensorReadStreamAccessor &) = delete;
	TensorReadStreamAccessor &operator=(TensorReadStreamAccessor &&) = delete;
	~TensorReadStreamAccessor()
	{
		if (s_.impl)
			detail::stream_close(&s_);
	}

	// The next element.
	__attribute__((always_inline)) T read()
	{
		if (__builtin_expect(s_.cur == s_.end, 0))
			detail::stream_next(&s_);
		T v = *reinterpret_cast<const T *>(s_.cur);
		s_.cur += sizeof(T);
		return v;
	}
	// Closes the stream: 0, or -1 when it was closed already.
	int close() { return detail::stream_close(&s_); }

private:
	detail::Stream s_;
};

template <typename T> class TensorWriteStreamAccessor {
public:
	// What Tensor::write_stream_accessor<T>() makes.
	explicit TensorWriteStreamAccessor(detail::TensorImpl *impl)
	{
		detail::stream_open(&s_, impl, c10::CppTypeToScalarType<T>::value, Q7_ACC_WRITE_STREAM);
	}
	TensorWriteStreamAccessor(TensorWriteStreamAccessor &&o) noexcept { detail::stream_move(&s_, &o.s_); }
	TensorWriteStreamAccessor(const TensorWriteStreamAccessor &) = delete;
	TensorWriteStreamAccessor &operator=(const TensorWriteStreamAccessor &) = delete;
	TensorWriteStreamAccessor &operator=(TensorWriteStreamAccessor &&) = delete;
	~TensorWriteStreamAccessor()
	{
		if (s_.impl)
			detail::stream_close(&s_);
	}

	// Writes the next element (in the tensor at the latest when the stream closes).
	__attribute__((always_inline)) void write(T value)
	{
		if (__builtin_expect(s_.cur == s_.end, 0))
			detail::stream_next(&s_);
		*reinterpret_cast<T *>(s_.cur) = value;
		s_.cur += sizeof(T);
	}
	// Writes back what the stream holds and closes it: 0, or -1 when it was closed already.
	int close() { return detail::stream_close(&s_); }

private:
	detail::Stream s_;
};

} // namespace at

#endif
