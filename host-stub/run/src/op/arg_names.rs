//! The schema's names in the SDK runtime's messages. The device knows a kernel's tensor and
//! scalar arguments only by their descriptor index, which is their position in the schema
//! (PLATFORM.md "ARG_TENSOR descriptor"), so its runtime errors say `argument N`
//! (examples/sdk/README.md "Runtime errors"); `q7emu run` and `q7_testing` know the
//! schema and print `argument N (name)`.

use q7_kernel_build::metadata::ArgInfo;
use q7_runtime::firmware::FirmwareError;

/// `e` with every `argument N` of a runtime error's message followed by ` (name)`, the name of
/// the schema's argument N, when the op has one.
pub fn name_arguments(mut e: FirmwareError, args: &[ArgInfo]) -> FirmwareError {
    if let FirmwareError::Aborted { message, .. } = &mut e {
        *message = named(message, args);
    }
    e
}

/// `message` with each `argument N` (N a schema position, not followed by another digit or
/// already by a name) followed by ` (name)`.
fn named(message: &str, args: &[ArgInfo]) -> String {
    const WORD: &str = "argument ";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(WORD) {
        let (head, tail) = rest.split_at(at + WORD.len());
        out.push_str(head);
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        let (number, after) = tail.split_at(digits);
        out.push_str(number);
        let arg = number
            .parse::<usize>()
            .ok()
            .and_then(|n| args.get(n))
            .filter(|_| !after.starts_with(" ("));
        if let Some(a) = arg {
            out.push_str(&format!(" ({})", a.name));
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use q7_tensor::arg_kind::ArgKind;

    fn args() -> Vec<ArgInfo> {
        [("x", ArgKind::Tensor), ("scale", ArgKind::Float)]
            .into_iter()
            .map(|(name, kind)| ArgInfo {
                name: name.into(),
                kind,
            })
            .collect()
    }

    #[test]
    fn each_argument_index_the_schema_has_gets_its_name() {
        assert_eq!(
            named(
                "kernel k: argument 0: a write stream opened while a read stream is open on it",
                &args()
            ),
            "kernel k: argument 0 (x): a write stream opened while a read stream is open on it"
        );
        assert_eq!(
            named("argument 1, argument 0 and argument 2", &args()),
            "argument 1 (scale), argument 0 (x) and argument 2"
        );
        // Not an index (no digits), not twice, and nothing else changes.
        assert_eq!(named("argument x", &args()), "argument x");
        assert_eq!(named("argument 0 (x) ok", &args()), "argument 0 (x) ok");
        assert_eq!(named("argument 10", &args()), "argument 10");
        assert_eq!(named("no arguments", &args()), "no arguments");
    }

    #[test]
    fn only_runtime_errors_are_renamed() {
        let e = FirmwareError::Aborted {
            core: 0,
            what: "kernel",
            code: 7,
            name: "ABORT",
            message: "kernel k: argument 1: bad".into(),
            report: None,
        };
        assert_eq!(
            name_arguments(e, &args()).to_string(),
            "core 0: kernel aborted with runtime error 7 (ABORT): kernel k: argument 1 (scale): bad"
        );
    }
}
