//! How compiled code calls a helper (docs/jit.md "Registers"): on x86-64 Unix hosts, through a
//! shim that keeps every general-purpose register, so that Cranelift, told the call clobbers
//! none (its `preserve_all` convention), keeps the context and the guest's registers in host
//! registers across the helper calls on a block's cold paths, where it used to keep them in
//! stack slots through the whole block and load them again before each use. Elsewhere blocks
//! call helpers directly, on the host's C convention.
//!
//! The shim is called with the context, [`ARGS`] 32-bit arguments and the helper's address;
//! it calls the helper with the context and the arguments on the host's C convention and puts
//! its answer into [`super::Ctx`]'s `answer`, where the block loads it. The vector registers,
//! which the helper may change, are not kept: blocks hold no floating-point or vector values
//! (the guest has none; `translate::build` checks in test builds).

use cranelift_codegen::ir::{types, AbiParam, Signature};
use cranelift_codegen::isa::CallConv;

/// The 32-bit arguments the shim passes after the context (a helper taking fewer ignores the
/// rest, as the C convention allows).
pub(crate) const ARGS: usize = 3;

/// The shim's signature as compiled code calls it: the context, [`ARGS`] 32-bit words, the
/// helper's address; no clobbered register, no result.
pub(crate) fn signature(ptr: types::Type) -> Signature {
    let mut sig = Signature::new(CallConv::PreserveAll);
    sig.params.push(AbiParam::new(ptr));
    sig.params
        .extend((0..ARGS).map(|_| AbiParam::new(types::I32)));
    sig.params.push(AbiParam::new(ptr));
    sig
}

/// The shim's address, where the host has one.
pub(crate) fn shim() -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", target_family = "unix"))]
    return Some(call_helper as *const () as usize);
    #[cfg(not(all(target_arch = "x86_64", target_family = "unix")))]
    None
}

/// Where [`call_helper`] puts the helper's answer: [`super::Ctx`]'s `answer`.
#[cfg(all(target_arch = "x86_64", target_family = "unix"))]
const ANSWER: usize = std::mem::offset_of!(super::Ctx, answer);

/// The shim: saves the nine registers the C convention lets a callee change (rax, rcx, rdx,
/// rsi, rdi, r8 to r11: nine pushes after the return address leave the stack 16-byte aligned
/// for the call, as the caller's was before its own), calls the helper whose address is in r8
/// with the context in rdi and the arguments in esi, edx and ecx, stores its answer (rax) at
/// the context's `answer`, and restores the nine.
#[cfg(all(target_arch = "x86_64", target_family = "unix"))]
#[unsafe(naked)]
extern "sysv64" fn call_helper() {
    // SAFETY: only compiled code calls this, as `translate::Tr::call_preserving` compiles the
    // call: rdi the context (a valid `*mut Ctx`), esi/edx/ecx the helper's arguments, r8 the
    // address of an `extern "C"` helper taking the context and up to three 32-bit words, the
    // stack 16-byte aligned before the call. It touches only its own frame and the context's
    // `answer`, and returns with every general-purpose register as it found them.
    core::arch::naked_asm!(
        "push rax",
        "push rcx",
        "push rdx",
        "push rsi",
        "push rdi",
        "push r8",
        "push r9",
        "push r10",
        "push r11",
        "call r8",
        "mov rdi, [rsp + 32]",
        "mov [rdi + {answer}], rax",
        "pop r11",
        "pop r10",
        "pop r9",
        "pop r8",
        "pop rdi",
        "pop rsi",
        "pop rdx",
        "pop rcx",
        "pop rax",
        "ret",
        answer = const ANSWER,
    );
}

#[cfg(all(test, target_arch = "x86_64", target_family = "unix"))]
mod tests {
    use super::super::Ctx;
    use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData as MemFlags, Value};
    use cranelift_frontend::FunctionBuilder;
    use cranelift_module::Module;

    /// Values the compiled function keeps live across the shim's call: more than the host has
    /// registers the C convention keeps, so some must sit in ones a callee may change.
    const LIVE: usize = 12;

    /// A helper that changes every register the C convention lets it change, and answers
    /// `a + 2b + 3c`.
    extern "C" fn clobbering(_ctx: *mut Ctx, a: u32, b: u32, c: u32) -> u64 {
        // SAFETY: writes only registers the asm block names as clobbered outputs.
        unsafe {
            core::arch::asm!(
                "mov rax, -1", "mov rcx, -1", "mov rdx, -1", "mov rsi, -1", "mov rdi, -1",
                "mov r8, -1", "mov r9, -1", "mov r10, -1", "mov r11, -1",
                out("rax") _, out("rcx") _, out("rdx") _, out("rsi") _, out("rdi") _,
                out("r8") _, out("r9") _, out("r10") _, out("r11") _,
            );
        }
        u64::from(a) + 2 * u64::from(b) + 3 * u64::from(c)
    }

    /// The live values: the context's `spill` words `0..LIVE`, set to `1000 × (i + 1) + i`.
    fn live_word(i: usize) -> u32 {
        1000 * (i as u32 + 1) + i as u32
    }

    #[test]
    fn a_helper_called_through_the_shim_leaves_every_register_compiled_code_keeps() {
        // docs/jit.md "Registers": Cranelift is told the call clobbers nothing, so whatever it
        // kept in a register across it must be there afterwards, and the answer in the
        // context's `answer`.
        let mut module = super::super::new_module().expect("a JIT module");
        let ptr = module.target_config().pointer_type();
        let body = |b: &mut FunctionBuilder, args: &[Value]| {
            let c = args[0];
            // Loads stay where they are (a pure computation would be moved after the call).
            let spill = std::mem::offset_of!(Ctx, spill) as i32;
            let live: Vec<_> = (0..LIVE as i32)
                .map(|i| {
                    let w = b
                        .ins()
                        .load(types::I32, MemFlags::trusted(), c, spill + 4 * i);
                    b.ins().uextend(types::I64, w)
                })
                .collect();
            let shim_sig = b.import_signature(super::signature(ptr));
            let mut call = vec![c];
            call.extend([5, 7, 11].map(|k| b.ins().iconst(types::I32, k)));
            call.push(b.ins().iconst(ptr, clobbering as *const () as usize as i64));
            let shim = b.ins().iconst(ptr, super::shim().expect("a shim") as i64);
            b.ins().call_indirect(shim_sig, shim, &call);
            let at = std::mem::offset_of!(Ctx, answer) as i32;
            let mut sum = b.ins().load(types::I64, MemFlags::trusted(), c, at);
            for v in live {
                sum = b.ins().iadd(sum, v);
            }
            b.ins().return_(&[sum]);
        };
        let code = super::super::translate::compile_host_function(
            &mut module,
            "keeps",
            &[ptr],
            types::I64,
            body,
        )
        .expect("compiled");
        // SAFETY: `code` is the function just compiled with the signature above: the host's
        // C convention, a pointer in, an i64 out.
        let f = unsafe { std::mem::transmute::<*const u8, extern "C" fn(*mut Ctx) -> u64>(code) };
        // SAFETY: every field of `Ctx` is an integer, a raw pointer or an array of them, for
        // which all zero bits are a value; the function reads `spill` and, after the shim
        // wrote it, `answer`.
        let mut context: Box<Ctx> = Box::new(unsafe { std::mem::zeroed() });
        for i in 0..LIVE {
            context.spill[i] = live_word(i);
        }
        let sum: u64 = (0..LIVE).map(|i| u64::from(live_word(i))).sum();
        let at: *mut Ctx = &mut *context;
        assert_eq!(f(at), sum + 5 + 14 + 33);
        assert_eq!(context.answer, 5 + 14 + 33);
    }
}
