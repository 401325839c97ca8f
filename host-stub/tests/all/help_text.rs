//! The command line's help cites nothing a user cannot open: no text of `q7emu --help` or of
//! any subcommand's `--help` names the seed documents the platform facts come from (the
//! repository restates them: PLATFORM.md, isa/ISA.md, examples/sdk/BUILD.md) or a path
//! outside the repository; and `docs/cli.md` shows each help text as the binary prints it.

use crate::support;

use support::q7emu;

fn help(args: &[&str]) -> String {
    let out = q7emu().args(args).arg("--help").output().unwrap();
    assert!(out.status.success(), "q7emu {args:?} --help");
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands `q7emu --help` lists.
fn subcommands() -> Vec<String> {
    help(&[])
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

#[test]
fn no_help_text_cites_a_document_outside_the_repository() {
    let subs = subcommands();
    for expected in ["disasm", "run-elf", "run-packed", "build", "run", "inspect"] {
        assert!(subs.iter().any(|s| s == expected), "{expected} in {subs:?}");
    }
    let mut texts = vec![("q7emu".to_string(), help(&[]))];
    for sub in &subs {
        texts.push((format!("q7emu {sub}"), help(&[sub])));
    }
    for (what, text) in texts {
        let lower = text.to_lowercase();
        for outside in ["seed", "../", "shared/"] {
            assert!(
                !lower.contains(outside),
                "`{what} --help` cites {outside:?}:\n{text}"
            );
        }
    }
}

#[test]
fn docs_cli_md_shows_every_help_text_as_the_binary_prints_it() {
    let mut blocks = vec![("q7emu --help".to_string(), help(&[]))];
    for sub in subcommands() {
        blocks.push((format!("q7emu {sub} --help"), help(&[&sub])));
    }
    q7_tests::generated::check_generated(
        "docs/cli.md",
        &blocks,
        &q7_tests::generated::regenerate("q7-host", "all help_text::"),
    );
}
