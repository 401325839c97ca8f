//! Where snapshots live: [`snapshot_dir`] and [`snapshot_settings`](crate::snapshot_settings()) put them in the
//! [`SNAPSHOT_DIR`] folder of the calling crate's workspace root, and the exported macros
//! ([`snapshot_settings!`](crate::snapshot_settings!),
//! [`assert_summary_snapshot!`](crate::assert_summary_snapshot),
//! [`assert_summary_yaml_snapshot!`](crate::assert_summary_yaml_snapshot)) assert with those
//! settings (docs/testing.md).

use std::path::{Path, PathBuf};

/// The snapshot folder, under the workspace root.
pub const SNAPSHOT_DIR: &str = "snapshots";

/// The snapshot folder of the crate at `manifest_dir`: [`SNAPSHOT_DIR`] under the nearest
/// directory, `manifest_dir` included, whose `Cargo.toml` has a `[workspace]` table, else
/// under `manifest_dir`.
pub fn snapshot_dir(manifest_dir: impl AsRef<Path>) -> PathBuf {
    let manifest_dir = manifest_dir.as_ref();
    let is_workspace = |dir: &Path| {
        std::fs::read_to_string(dir.join("Cargo.toml"))
            .is_ok_and(|t| t.lines().any(|l| l.trim() == "[workspace]"))
    };
    manifest_dir
        .ancestors()
        .find(|d| is_workspace(d))
        .unwrap_or(manifest_dir)
        .join(SNAPSHOT_DIR)
}

/// insta settings for the crate at `manifest_dir`: the current settings with snapshots in
/// [`snapshot_dir`] and no expression in their headers.
/// [`snapshot_settings!`](crate::snapshot_settings!) calls it with the calling crate's
/// directory.
pub fn snapshot_settings(manifest_dir: impl AsRef<Path>) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(snapshot_dir(manifest_dir));
    s.set_omit_expression(true);
    s
}

/// The insta settings that put the calling crate's snapshots in its workspace's
/// `snapshots/` folder ([`snapshot_settings`](crate::snapshot_settings())):
/// `let _dir = q7_testing::snapshot_settings!().bind_to_scope();` before any insta assertion.
#[macro_export]
macro_rules! snapshot_settings {
    () => {
        $crate::snapshot_settings(env!("CARGO_MANIFEST_DIR"))
    };
}

/// Asserts a [`Summary`](crate::Summary)'s text form against its snapshot in the
/// workspace's `snapshots/` folder: `assert_summary_snapshot!(summary)` names the snapshot
/// after the test function, `assert_summary_snapshot!("name", summary)` names it.
#[macro_export]
macro_rules! assert_summary_snapshot {
    ($name:expr, $summary:expr $(,)?) => {{
        let text = $crate::Summary::text(&$summary);
        $crate::snapshot_settings!().bind(|| {
            $crate::insta::assert_snapshot!($name, text);
        })
    }};
    ($summary:expr $(,)?) => {{
        let text = $crate::Summary::text(&$summary);
        $crate::snapshot_settings!().bind(|| {
            $crate::insta::assert_snapshot!(text);
        })
    }};
}

/// As [`assert_summary_snapshot!`](crate::assert_summary_snapshot), with the YAML form.
#[macro_export]
macro_rules! assert_summary_yaml_snapshot {
    ($name:expr, $summary:expr $(,)?) => {{
        let summary: &$crate::Summary = &$summary;
        $crate::snapshot_settings!().bind(|| {
            $crate::insta::assert_yaml_snapshot!($name, summary);
        })
    }};
    ($summary:expr $(,)?) => {{
        let summary: &$crate::Summary = &$summary;
        $crate::snapshot_settings!().bind(|| {
            $crate::insta::assert_yaml_snapshot!(summary);
        })
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_go_to_the_workspace_roots_snapshots_folder() {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = manifest.parent().unwrap().parent().unwrap();
        assert_eq!(snapshot_dir(manifest), root.join("snapshots"));
        assert_eq!(snapshot_dir(root), root.join("snapshots"));
        // Outside any workspace: the crate's own folder.
        let lone = std::env::temp_dir().join("q7-testing-lone-crate");
        std::fs::create_dir_all(&lone).unwrap();
        std::fs::write(lone.join("Cargo.toml"), "[package]\nname = \"lone\"\n").unwrap();
        assert_eq!(snapshot_dir(&lone), lone.join("snapshots"));
        std::fs::remove_dir_all(&lone).unwrap();
    }
}
