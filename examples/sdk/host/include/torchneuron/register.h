// torchneuron/register.h (host) - `NEURON_LIBRARY(ns, m) { m.def("op", &shape_fn, "kernel_fn"); }`:
// the registrations of a project's shape sources (examples/sdk/BUILD.md "Projects"). Each
// `m.def` records the op's name, its shape function and the name of its kernel function; the
// shape executable `q7emu build` links from the shape sources (with the SDK's
// host/shape_main.cpp) lists them (`--list`) and calls a shape function on the shapes, dtypes
// and scalars `q7emu run` sends it.
//
// A shape function returns one torch::Tensor; its parameters are torch::Tensor (by value or
// reference), torch::Scalar, double, int64_t or bool - the op's arguments in schema order.
// Other parameter types do not compile.
#ifndef Q7_HOST_TORCHNEURON_REGISTER_H
#define Q7_HOST_TORCHNEURON_REGISTER_H

#include <stddef.h>
#include <stdint.h>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>
#include <torch/torch.h>

namespace torchneuron {

// The kind of an op argument, as q7build.json and the shape protocol spell it.
enum class ArgKind { Tensor, Scalar, Float, Int, Bool };

inline const char *kind_name(ArgKind k)
{
	switch (k) {
	case ArgKind::Tensor: return "tensor";
	case ArgKind::Scalar: return "scalar";
	case ArgKind::Float: return "float";
	case ArgKind::Int: return "int";
	case ArgKind::Bool: return "bool";
	}
	return "?";
}

// One argument of a call.
struct Arg {
	ArgKind kind;
	at::Tensor tensor;
	c10::Scalar scalar;
	double f;
	int64_t i;
	bool b;
};

namespace detail {

template <typename T, typename = void> struct ArgOf {
	static_assert(sizeof(T) == 0, "a shape function's parameters are torch::Tensor, torch::Scalar, double, "
				      "int64_t or bool (examples/sdk/BUILD.md \"Projects\")");
};
template <> struct ArgOf<at::Tensor> {
	static constexpr ArgKind kind = ArgKind::Tensor;
	static at::Tensor &get(Arg &a) { return a.tensor; }
};
template <> struct ArgOf<c10::Scalar> {
	static constexpr ArgKind kind = ArgKind::Scalar;
	static c10::Scalar &get(Arg &a) { return a.scalar; }
};
template <> struct ArgOf<double> {
	static constexpr ArgKind kind = ArgKind::Float;
	static double &get(Arg &a) { return a.f; }
};
template <> struct ArgOf<bool> {
	static constexpr ArgKind kind = ArgKind::Bool;
	static bool &get(Arg &a) { return a.b; }
};
// int64_t, and long long where int64_t is long.
template <typename T>
struct ArgOf<T, typename std::enable_if<std::is_integral<T>::value && std::is_signed<T>::value && sizeof(T) == 8>::type> {
	static constexpr ArgKind kind = ArgKind::Int;
	static T get(Arg &a) { return T(a.i); }
};

template <typename... A, size_t... I>
at::Tensor invoke(at::Tensor (*fn)(A...), std::vector<Arg> &args, std::index_sequence<I...>)
{
	return fn(ArgOf<typename std::decay<A>::type>::get(args[I])...);
}

} // namespace detail

// One registration.
struct OpDef {
	const char *name;
	const char *kernel;
	std::vector<ArgKind> kinds;
	std::function<at::Tensor(std::vector<Arg> &)> call;
};

class Library {
public:
	// Registers op `name`, whose output shape and dtype `shape_fn` computes and whose kernel is
	// the compute sources' function `kernel`.
	template <typename... A> Library &def(const char *name, at::Tensor (*shape_fn)(A...), const char *kernel)
	{
		OpDef d;
		d.name = name;
		d.kernel = kernel;
		d.kinds = {detail::ArgOf<typename std::decay<A>::type>::kind...};
		d.call = [shape_fn](std::vector<Arg> &args) {
			return detail::invoke(shape_fn, args, std::index_sequence_for<A...>());
		};
		ops.push_back(d);
		return *this;
	}

	const char *ns = nullptr;
	std::vector<OpDef> ops;
};

namespace detail {

// Every NEURON_LIBRARY of the executable, in static-initialisation order.
inline std::vector<Library> &libraries()
{
	static std::vector<Library> all;
	return all;
}

struct Registrar {
	Registrar(const char *ns, void (*init)(Library &))
	{
		Library m;
		m.ns = ns;
		init(m);
		libraries().push_back(m);
	}
};

} // namespace detail
} // namespace torchneuron

#define NEURON_LIBRARY(ns, m)                                                                           \
	static void q7_neuron_library_init_##ns(::torchneuron::Library &);                              \
	static const ::torchneuron::detail::Registrar q7_neuron_library_registrar_##ns(#ns,             \
										      &q7_neuron_library_init_##ns); \
	static void q7_neuron_library_init_##ns(::torchneuron::Library &m)

#endif
