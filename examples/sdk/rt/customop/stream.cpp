/* stream.cpp - the stream accessors' runtime (ATen/core/TensorStreamAccessor.h,
 * examples/sdk/README.md "Stream accessors and coherence").
 *
 * A buffered stream owns one of the Q7_STREAM_BUFFERS slots and a Q7_STREAM_BUFFER_BYTES buffer
 * from the TCM pool, walked in two halves. A read stream queues the tensor's first two halves
 * at opening; each time the kernel finishes a half, the runtime queues the next chunk into it
 * and hands out the other one once its transfer is complete. A write stream hands out half 0;
 * each time the kernel fills a half, the runtime queues its transfer to the tensor and hands
 * out the other half once that half's previous transfer is complete; close() queues the part
 * of the current half that was written and waits for both. Core-local storage is copied by the
 * core instead of SDMA. An unbuffered stream (no slot left) hands out one element at a time,
 * translated in place, as the element accessor reads and writes it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ATen/ATen.h>
#include <q7/customop_abi.h>
#include <q7/rt_state.h>
#include <q7/runtime.h>

#include "rt.h"

using namespace q7::rt;

namespace {

constexpr uint32_t HALF = Q7_STREAM_BUFFER_BYTES / 2;

const char *kind_name(const at::detail::Stream *s) { return s->kind == Q7_ACC_READ_STREAM ? "read" : "write"; }

const char *name_of(const at::detail::Stream *s) { return tensor_name(s->arg, s->base, s->local); }

uint8_t *half_at(const at::detail::Stream *s, uint32_t h) { return (uint8_t *)uintptr_t(s->buf + h * HALF); }

uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Queues the copy of `n` bytes between storage byte `offset` and `local`: SDMA for HBM storage
 * (the count to wait for), the core for local storage (done at once: 0). */
uint32_t transfer(const at::detail::Stream *s, uint64_t offset, uint8_t *local, uint32_t n)
{
	bool in = s->kind == Q7_ACC_READ_STREAM;
	if (s->local) {
		void *storage = (void *)uintptr_t(s->base + offset);
		if (in)
			memcpy(local, storage, n);
		else
			memcpy(storage, local, n);
		return 0;
	}
	return sdma_push(in ? Q7_SDMA_M2S : Q7_SDMA_S2M, s->base + offset, uint32_t(uintptr_t(local)), n);
}

void settle(at::detail::Stream *s, uint32_t h)
{
	if (s->pending[h]) {
		sdma_wait(s->kind == Q7_ACC_READ_STREAM ? Q7_SDMA_M2S : Q7_SDMA_S2M, s->pending[h]);
		s->pending[h] = 0;
	}
}

/* Hands out the half `s->half` for the storage from `s->pos` on. */
void hand_out(at::detail::Stream *s)
{
	uint64_t n = min64(HALF, s->total - s->pos);
	s->cur = half_at(s, s->half);
	s->end = s->cur + n;
	s->pos += n;
}

/* Queues the read of the next chunk into half `h`, when the tensor has one. */
void request(at::detail::Stream *s, uint32_t h)
{
	if (s->requested == s->total)
		return;
	uint32_t n = uint32_t(min64(HALF, s->total - s->requested));
	s->pending[h] = transfer(s, s->requested, half_at(s, h), n);
	s->requested += n;
}

/* Takes a free slot and a buffer for `s`; false when every slot is taken (the stream then goes
 * unbuffered). Stops the kernel when the TCM pool cannot give the buffer. */
bool take_buffer(at::detail::Stream *s)
{
	q7_rt_state *st = Q7_RT;
	uint32_t slot = 0;
	while (slot < Q7_STREAM_BUFFERS && st->stream_buf[slot])
		slot++;
	if (slot == Q7_STREAM_BUFFERS)
		return false;
	uint32_t buf = tcm_alloc(Q7_STREAM_BUFFER_BYTES);
	if (!buf) {
		TcmUse use = tcm_use();
		uint32_t streams = 0;
		for (uint32_t i = 0; i < Q7_STREAM_BUFFERS; i++)
			streams += st->stream_buf[i] != 0;
		q7_fatal(Q7_ERR_OUT_OF_MEMORY,
			 "kernel %s: %s: a %s stream needs a %u-byte buffer from the %u KiB TCM pool, whose largest free "
			 "block is %u bytes (tcm_malloc holds %u bytes of it, open streams %u)",
			 op_name(), name_of(s), kind_name(s), (unsigned)Q7_STREAM_BUFFER_BYTES, (unsigned)(Q7_TCM_POOL_SIZE / 1024),
			 (unsigned)use.largest_free, (unsigned)(use.used - streams * Q7_STREAM_BUFFER_BYTES), (unsigned)streams);
	}
	st->stream_buf[slot] = buf;
	s->buf = buf;
	return true;
}

void give_buffer_back(at::detail::Stream *s)
{
	q7_rt_state *st = Q7_RT;
	for (uint32_t i = 0; i < Q7_STREAM_BUFFERS; i++)
		if (st->stream_buf[i] == s->buf)
			st->stream_buf[i] = 0;
	tcm_release(s->buf, "stream buffer");
	s->buf = 0;
}

} // namespace

namespace q7 {
namespace rt {

void stream_reclaim()
{
	q7_rt_state *st = Q7_RT;
	for (uint32_t i = 0; i < Q7_STREAM_BUFFERS; i++) {
		if (st->stream_buf[i]) {
			tcm_release(st->stream_buf[i], "stream buffer");
			st->stream_buf[i] = 0;
		}
	}
}

} // namespace rt
} // namespace q7

namespace at {
namespace detail {

void stream_open(Stream *s, TensorImpl *impl, c10::ScalarType elem, uint32_t kind)
{
	memset(s, 0, sizeof *s);
	s->kind = uint8_t(kind);
	s->arg = impl->arg;
	s->base = impl->data.addr;
	s->local = impl->data.is_local;
	s->elem = uint8_t(c10::elementSize(impl->dtype));
	s->total = uint64_t(impl->numel) * s->elem;
	accessor_open(impl, elem, 0, kind, kind == Q7_ACC_WRITE_STREAM);
	s->impl = impl;
	if (!take_buffer(s))
		return; /* unbuffered: cur == end, every element goes through stream_next */
	if (kind == Q7_ACC_READ_STREAM) {
		request(s, 0);
		request(s, 1);
		s->cur = s->end = half_at(s, 0);
	} else {
		hand_out(s);
	}
}

void stream_next(Stream *s)
{
	if (!s->impl)
		q7_fatal(Q7_ERR_ABORT, "kernel %s: %s: %s() on a closed %s stream", op_name(), name_of(s),
			 s->kind == Q7_ACC_READ_STREAM ? "read" : "write", kind_name(s));
	if (s->pos == s->total)
		q7_fatal(Q7_ERR_ABORT, "kernel %s: %s: %s() past the end of a %s stream of %llu elements", op_name(), name_of(s),
			 s->kind == Q7_ACC_READ_STREAM ? "read" : "write", kind_name(s),
			 (unsigned long long)(s->total / s->elem));
	if (!s->buf) {
		/* Unbuffered: the next element where it lies. */
		uint64_t a = s->base + s->pos;
		s->cur = static_cast<uint8_t *>(s->local ? (void *)uintptr_t(a) : q7_translate(a));
		s->end = s->cur + s->elem;
		s->pos += s->elem;
		return;
	}
	if (s->kind == Q7_ACC_READ_STREAM) {
		if (s->started) {
			request(s, s->half);
			s->half ^= 1;
		}
		s->started = 1;
		settle(s, s->half);
		hand_out(s);
		return;
	}
	/* A full half of a write stream goes to the tensor; the other half takes the next writes
	 * once its own last transfer is done. */
	uint8_t *h = half_at(s, s->half);
	uint32_t n = uint32_t(s->end - h);
	s->pending[s->half] = transfer(s, s->pos - n, h, n);
	s->half ^= 1;
	settle(s, s->half);
	hand_out(s);
}

int stream_close(Stream *s)
{
	TensorImpl *impl = s->impl;
	if (!impl)
		return -1;
	if (s->buf) {
		if (s->kind == Q7_ACC_WRITE_STREAM) {
			uint8_t *h = half_at(s, s->half);
			uint32_t n = uint32_t(s->cur - h);
			if (n)
				s->pending[s->half] = transfer(s, s->pos - uint32_t(s->end - h), h, n);
		}
		settle(s, 0);
		settle(s, 1);
		give_buffer_back(s);
	}
	s->impl = nullptr;
	s->cur = s->end = nullptr;
	accessor_close(impl, s->kind);
	return 0;
}

void stream_move(Stream *dst, Stream *src)
{
	*dst = *src;
	src->impl = nullptr;
	src->cur = src->end = nullptr;
	src->buf = 0;
}

} // namespace detail
} // namespace at
