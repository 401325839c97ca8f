//! # q7-requires — what a test needs from the machine, as an attribute
//!
//! `#[q7_requires::needs(toolchain, qemu, host_cxx)]` marks a test that needs the windowed
//! Xtensa toolchain, `qemu-system-xtensa` or the host C++ compiler, any of them
//! (q7_environment::requirement, DEVELOPING.md "Tests that need tools"). Where one is missing
//! when the test is built, the test is compiled `#[ignore]`d with the notice of the one rule as
//! the reason, so `cargo test` shows it as ignored rather than passed; with
//! `$Q7EMU_REQUIRE_TOOLCHAIN` on it is never ignored, and fails naming what is missing. Put the
//! attribute above `#[test]`:
//!
//! ```ignore
//! #[q7_requires::needs(toolchain, qemu)]
//! #[test]
//! fn matches_qemu() { /* ... */ }
//! ```

use proc_macro::{TokenStream, TokenTree};

/// Each requirement's name and the reason its tests are ignored on this machine (empty: it is
/// there, or `$Q7EMU_REQUIRE_TOOLCHAIN` is on), as the build script found them.
const REASONS: &[(&str, &str)] = &include!(concat!(env!("OUT_DIR"), "/reasons.rs"));

/// Marks a test that needs each requirement named (`toolchain`, `qemu`, `host_cxx`): ignored,
/// with the reasons, where any is missing.
#[proc_macro_attribute]
pub fn needs(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut reasons = Vec::new();
    let mut named = 0;
    for token in attr {
        match token {
            TokenTree::Ident(name) => {
                let name = name.to_string();
                let Some((_, reason)) = REASONS.iter().find(|(n, _)| *n == name) else {
                    return error(&format!(
                        "q7_requires::needs: unknown requirement `{name}` (known: {})",
                        known()
                    ));
                };
                named += 1;
                if !reason.is_empty() {
                    reasons.push(*reason);
                }
            }
            TokenTree::Punct(p) if p.as_char() == ',' => {}
            other => {
                return error(&format!(
                    "q7_requires::needs: expected requirement names separated by commas, found `{other}`"
                ))
            }
        }
    }
    if named == 0 {
        return error(&format!(
            "q7_requires::needs: name what the test needs ({})",
            known()
        ));
    }
    if reasons.is_empty() {
        return item;
    }
    let mut marked: TokenStream = format!("#[ignore = {:?}]", reasons.join("; "))
        .parse()
        .expect("an ignore attribute with a string literal is valid tokens");
    marked.extend(item);
    marked
}

/// The requirements' names, for errors.
fn known() -> String {
    let names: Vec<&str> = REASONS.iter().map(|(name, _)| *name).collect();
    names.join(", ")
}

/// A compile error saying `message`.
fn error(message: &str) -> TokenStream {
    format!("compile_error!({message:?});")
        .parse()
        .expect("a compile_error! invocation is valid tokens")
}
