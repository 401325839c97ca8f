// shape_main.cpp (host) - the main of a project's shape executable, linked by `q7emu build`
// with the project's shape sources (examples/sdk/BUILD.md "Projects", which specifies the
// protocol):
//
//   <exe> --list   prints the registrations as one JSON line:
//                  {"namespace":"my_ops","ops":[{"name":"relu_forward","kernel":"relu_forward","args":["tensor"]}]}
//   <exe>          reads one request on stdin and prints the output's ISA dtype code and shape:
//                  {"dtype":12,"shape":[32,4096]}
//
// A request is whitespace-separated words: `q7shape 1`, `op NAME`, then one item per argument
// in schema order - `tensor CODE RANK D0 .. D(RANK-1)`, `scalar int V`, `scalar float BITS`,
// `float BITS`, `int V`, `bool 0|1` (BITS: the IEEE double's bits in hex, V: decimal) - then
// `end`. Exit status: 0 done, 2 a request or registration this executable cannot serve, 3 the
// shape function stopped it (`q7shape: error: ...` on stderr).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <torchneuron/register.h>

namespace {

[[noreturn]] void bad(const char *fmt, const char *arg)
{
	fputs("q7shape: bad request: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

const char *word()
{
	static char buf[64];
	if (scanf("%63s", buf) != 1)
		bad("%s", "it ends early");
	return buf;
}

void expect(const char *w)
{
	const char *got = word();
	if (strcmp(got, w) != 0) {
		fprintf(stderr, "q7shape: bad request: expected `%s`, found `%s`\n", w, got);
		exit(2);
	}
}

long long integer(const char *what)
{
	const char *w = word();
	char *end = nullptr;
	long long v = strtoll(w, &end, 0);
	if (*w == 0 || *end != 0)
		bad(what, w);
	return v;
}

double float_bits()
{
	const char *w = word();
	char *end = nullptr;
	unsigned long long bits = strtoull(w, &end, 16);
	if (*w == 0 || *end != 0)
		bad("float bits `%s` are not hex", w);
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

const torchneuron::Library &library()
{
	auto &all = torchneuron::detail::libraries();
	if (all.size() != 1) {
		fprintf(stderr, "q7shape: the shape sources register %zu NEURON_LIBRARY blocks; a build is one\n",
			all.size());
		exit(2);
	}
	return all[0];
}

void list()
{
	const torchneuron::Library &lib = library();
	printf("{\"namespace\":\"%s\",\"ops\":[", lib.ns);
	for (size_t i = 0; i < lib.ops.size(); i++) {
		const torchneuron::OpDef &d = lib.ops[i];
		printf("%s{\"name\":\"%s\",\"kernel\":\"%s\",\"args\":[", i ? "," : "", d.name, d.kernel);
		for (size_t k = 0; k < d.kinds.size(); k++)
			printf("%s\"%s\"", k ? "," : "", torchneuron::kind_name(d.kinds[k]));
		printf("]}");
	}
	printf("]}\n");
}

void serve()
{
	const torchneuron::Library &lib = library();
	expect("q7shape");
	expect("1");
	expect("op");
	const char *name = word();
	const torchneuron::OpDef *op = nullptr;
	for (const torchneuron::OpDef &d : lib.ops)
		if (strcmp(d.name, name) == 0)
			op = &d;
	if (!op)
		bad("no op `%s` is registered", name);
	std::vector<torchneuron::Arg> args(op->kinds.size());
	for (size_t i = 0; i < args.size(); i++) {
		torchneuron::Arg &a = args[i];
		a.kind = op->kinds[i];
		const char *kind = word();
		if (strcmp(kind, torchneuron::kind_name(a.kind)) != 0)
			bad("argument kind `%s` differs from the shape function's parameter", kind);
		switch (a.kind) {
		case torchneuron::ArgKind::Tensor: {
			long long code = integer("dtype code `%s` is not a number");
			c10::ScalarType t = c10::fromIsaDtype(uint8_t(code));
			if (code < 0 || code > 0xF || t == c10::ScalarType::Undefined) {
				fprintf(stderr, "q7shape: bad request: dtype code %lld is not a tensor dtype\n", code);
				exit(2);
			}
			long long rank = integer("rank `%s` is not a number");
			if (rank < 0 || rank > 8) {
				fprintf(stderr, "q7shape: bad request: rank %lld is not 0 to 8\n", rank);
				exit(2);
			}
			std::vector<int64_t> dims;
			for (long long d = 0; d < rank; d++)
				dims.push_back(integer("dim `%s` is not a number"));
			a.tensor = at::Tensor(c10::IntArrayRef(dims.data(), dims.size()), t);
			break;
		}
		case torchneuron::ArgKind::Scalar: {
			const char *sk = word();
			if (strcmp(sk, "int") == 0)
				a.scalar = c10::Scalar(int64_t(integer("scalar `%s` is not a number")));
			else if (strcmp(sk, "float") == 0)
				a.scalar = c10::Scalar(float_bits());
			else
				bad("scalar kind `%s` is not int or float", sk);
			break;
		}
		case torchneuron::ArgKind::Float: a.f = float_bits(); break;
		case torchneuron::ArgKind::Int: a.i = integer("int `%s` is not a number"); break;
		case torchneuron::ArgKind::Bool: a.b = integer("bool `%s` is not 0 or 1") != 0; break;
		}
	}
	expect("end");
	at::Tensor out = op->call(args);
	if (!out.defined())
		torchneuron::detail::fail("the shape function of op %s returned an undefined tensor", op->name);
	printf("{\"dtype\":%u,\"shape\":[", unsigned(c10::toIsaDtype(out.scalar_type())));
	for (int64_t d = 0; d < out.dim(); d++)
		printf("%s%lld", d ? "," : "", (long long)out.size(d));
	printf("]}\n");
}

} // namespace

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--list") == 0)
		list();
	else if (argc == 1)
		serve();
	else {
		fputs("usage: shape-executable [--list] (examples/sdk/BUILD.md \"Projects\")\n", stderr);
		return 2;
	}
	return fflush(stdout) == 0 ? 0 : 2;
}
