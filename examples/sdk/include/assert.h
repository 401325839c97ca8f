/* assert.h - the SDK's own (no include guard: NDEBUG may change between inclusions). A failed
 * assert stops the kernel with runtime error ASSERT (PLATFORM.md "Runtime errors") after
 * printing "q7 runtime error: assertion failed: <expr> (<file>:<line>, <function>)". */
#ifndef Q7_ASSERT_FAIL_DECLARED
#define Q7_ASSERT_FAIL_DECLARED
#ifdef __cplusplus
extern "C"
#endif
__attribute__((noreturn)) void __q7_assert_fail(const char *expr, const char *file, int line,
						const char *func);
#endif

#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __q7_assert_fail(#e, __FILE__, __LINE__, __func__))
#endif

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(static_assert)
#define static_assert _Static_assert
#endif
