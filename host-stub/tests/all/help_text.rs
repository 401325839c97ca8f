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

/// The subcommands `q7emu --help` lists, and those each of them lists (`profile report`).
fn subcommands() -> Vec<String> {
    let mut all = Vec::new();
    for sub in commands_of(&[]) {
        let nested = commands_of(&[&sub]);
        all.push(sub.clone());
        all.extend(nested.into_iter().map(|n| format!("{sub} {n}")));
    }
    all
}

/// The commands `q7emu ARGS --help` lists.
fn commands_of(args: &[&str]) -> Vec<String> {
    help(args)
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
    for expected in [
        "disasm",
        "run-elf",
        "run-packed",
        "build",
        "run",
        "inspect",
        "profile",
        "profile report",
    ] {
        assert!(subs.iter().any(|s| s == expected), "{expected} in {subs:?}");
    }
    let mut texts = vec![("q7emu".to_string(), help(&[]))];
    for sub in &subs {
        let args: Vec<&str> = sub.split(' ').collect();
        texts.push((format!("q7emu {sub}"), help(&args)));
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
        let args: Vec<&str> = sub.split(' ').collect();
        blocks.push((format!("q7emu {sub} --help"), help(&args)));
    }
    q7_tests::generated::check_generated(
        "docs/cli.md",
        &blocks,
        &q7_tests::generated::regenerate("q7-host", "all help_text::"),
    );
}
