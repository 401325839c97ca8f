//! The progress line of a long dispatch on a terminal (`q7emu run`, `run-packed`): after
//! [`SHOW_AFTER`] ([`show_after`]) it shows the time elapsed, how many of the dispatch's cores have finished and
//! each core's cycles so far, and it is cleared when the dispatch ends. It reads what the cores
//! publish into their [`Progress`] every `Core::poll_period` cycles, from a thread of its own, so it
//! changes nothing the cores do. Nothing is drawn when stderr is not a terminal, nor when the
//! command was not asked for it (its output is JSON: [`stderr_target`]).

use std::io::IsTerminal;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use q7_emulator::platform::Cluster;
use q7_emulator::Progress;

/// How long a dispatch runs before its progress line appears, unless [`AFTER_VARIABLE`] says
/// otherwise.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);
/// The environment variable that sets, in milliseconds, how long a dispatch runs before its
/// progress line appears (a value that is not a decimal number is ignored).
pub const AFTER_VARIABLE: &str = q7_environment::PROGRESS_AFTER_MS.name;

/// How long a dispatch runs before its progress line appears: [`AFTER_VARIABLE`] or
/// [`SHOW_AFTER`].
pub fn show_after() -> Duration {
    std::env::var(AFTER_VARIABLE)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .map_or(SHOW_AFTER, Duration::from_millis)
}
/// How often the line is redrawn.
const REDRAW: Duration = Duration::from_millis(100);

/// The template of the line: spinner, elapsed time, what runs, cores finished, cycles.
const TEMPLATE: &str = "{spinner} {elapsed} {prefix}{pos}/{len} cores finished, cycles {msg}";

/// Where a run draws its progress line: stderr when `requested` (the command's output is not
/// JSON) and stderr is a terminal, else nowhere.
pub fn stderr_target(requested: bool) -> Option<ProgressDrawTarget> {
    (requested && std::io::stderr().is_terminal()).then(ProgressDrawTarget::stderr)
}

/// One core of a dispatch as the line follows it.
#[derive(Debug)]
struct Followed {
    progress: Progress,
    /// Its cycle count when the dispatch started.
    cycles: u64,
    /// Its runs ended when the dispatch started.
    runs: u64,
}

/// The cores of one dispatch, followed through what they publish.
#[derive(Debug)]
pub struct Watch {
    cores: Vec<Followed>,
}

impl Watch {
    /// Follows cores `cores` of `cluster` from now on (each publishes into a [`Progress`] of
    /// its own from now on).
    pub fn attach(cluster: &mut Cluster, cores: impl IntoIterator<Item = u32>) -> Watch {
        let cores = cores
            .into_iter()
            .map(|c| {
                let core = &mut cluster.cores[c as usize];
                let progress = Progress::new();
                progress.publish(core.stats.cycles);
                core.progress = Some(progress.clone());
                Followed {
                    runs: progress.runs(),
                    cycles: core.stats.cycles,
                    progress,
                }
            })
            .collect();
        Watch { cores }
    }

    /// Cores followed.
    pub fn len(&self) -> usize {
        self.cores.len()
    }

    /// Whether no core is followed.
    pub fn is_empty(&self) -> bool {
        self.cores.is_empty()
    }

    /// Cores that have finished the dispatch, and each core's cycles so far in the dispatch
    /// (`5.2M 5.1M …`).
    pub fn status(&self) -> (u64, String) {
        let finished = self
            .cores
            .iter()
            .filter(|c| c.progress.runs() > c.runs)
            .count() as u64;
        let cycles: Vec<String> = self
            .cores
            .iter()
            .map(|c| short(c.progress.cycles().saturating_sub(c.cycles)))
            .collect();
        (finished, cycles.join(" "))
    }
}

/// `n` in at most four significant characters and a unit: `950`, `12.3k`, `5.2M`, `1.05G`.
pub fn short(n: u64) -> String {
    let x = n as f64;
    if n < 1000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{:.1}k", x / 1e3)
    } else if n < 1_000_000_000 {
        format!("{:.1}M", x / 1e6)
    } else {
        format!("{:.2}G", x / 1e9)
    }
}

/// Runs `dispatch`, drawing the progress of `watch` to `target` once it has run for `after`
/// (at least once when `after` is zero), labelled `label` (e.g. `dispatch 2/5: `), until it
/// returns; then clears the line. With no target, only runs `dispatch`.
pub fn while_running<R>(
    watch: &Watch,
    target: Option<ProgressDrawTarget>,
    after: Duration,
    label: &str,
    dispatch: impl FnOnce() -> R,
) -> R {
    let Some(target) = target else {
        return dispatch();
    };
    let (done, finished) = mpsc::channel::<()>();
    let start = Instant::now();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            // With no delay the line is drawn at least once, however short the dispatch.
            if !after.is_zero() && finished.recv_timeout(after) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            let style = ProgressStyle::with_template(TEMPLATE).expect("the template parses");
            let (finished_cores, cycles) = watch.status();
            let bar = ProgressBar::hidden()
                .with_style(style)
                .with_prefix(label.to_string())
                .with_message(cycles)
                .with_position(finished_cores)
                .with_elapsed(start.elapsed());
            bar.set_length(watch.len() as u64);
            bar.set_draw_target(target);
            loop {
                let (finished_cores, cycles) = watch.status();
                bar.set_position(finished_cores);
                bar.set_message(cycles);
                bar.tick();
                if finished.recv_timeout(REDRAW) != Err(RecvTimeoutError::Timeout) {
                    break;
                }
            }
            bar.finish_and_clear();
        });
        let result = dispatch();
        drop(done);
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::TermLike;
    use q7_emulator::platform::ClusterConfig;
    use std::sync::{Arc, Mutex};

    /// A terminal that records what is written to it, `<clear>` for a cleared line.
    #[derive(Debug, Clone, Default)]
    struct Recorder(Arc<Mutex<String>>);

    impl Recorder {
        fn text(&self) -> String {
            self.0.lock().unwrap().clone()
        }
        fn push(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(s);
            Ok(())
        }
    }

    impl TermLike for Recorder {
        fn width(&self) -> u16 {
            120
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.push(&format!("{s}\n"))
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.push(s)
        }
        fn clear_line(&self) -> std::io::Result<()> {
            self.push("<clear>")
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn two_cores() -> Cluster {
        Cluster::new(&ClusterConfig {
            cores: 2,
            hbm_bytes: 64 << 20,
            ..ClusterConfig::default()
        })
        .unwrap()
    }

    #[test]
    fn the_line_shows_label_finished_cores_and_cycles_then_is_cleared() {
        let mut cluster = two_cores();
        let watch = Watch::attach(&mut cluster, [0, 1]);
        cluster.cores[0]
            .progress
            .clone()
            .unwrap()
            .publish(3_000_000);
        cluster.cores[1].progress.clone().unwrap().ended(12_000);
        let term = Recorder::default();
        let target = ProgressDrawTarget::term_like(Box::new(term.clone()));
        let want = "dispatch 1/2: 1/2 cores finished, cycles 3.0M 12.0k";
        let got = while_running(
            &watch,
            Some(target),
            Duration::ZERO,
            "dispatch 1/2: ",
            || {
                // Wait (a bounded while) for the line to be drawn.
                for _ in 0..30_000 {
                    if term.text().contains(want) {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                7
            },
        );
        assert_eq!(got, 7, "the dispatch's result");
        let text = term.text();
        assert!(text.contains(want), "{text:?}");
        assert!(text.ends_with("<clear>"), "cleared at the end: {text:?}");
    }

    #[test]
    fn a_dispatch_shorter_than_the_delay_draws_nothing() {
        let mut cluster = two_cores();
        let watch = Watch::attach(&mut cluster, [0, 1]);
        let term = Recorder::default();
        let target = ProgressDrawTarget::term_like(Box::new(term.clone()));
        let hour = Duration::from_secs(3600);
        assert_eq!(while_running(&watch, Some(target), hour, "", || 1), 1);
        assert_eq!(term.text(), "");
        assert_eq!(while_running(&watch, None, Duration::ZERO, "", || 2), 2);
    }

    #[test]
    fn numbers_shorten_to_a_unit() {
        let got: Vec<String> = [950, 12_345, 5_170_985, 1_050_000_000]
            .into_iter()
            .map(short)
            .collect();
        assert_eq!(got, ["950", "12.3k", "5.2M", "1.05G"]);
    }

    #[test]
    fn the_status_counts_cycles_and_finished_runs_from_the_dispatchs_start() {
        let mut cluster = Cluster::new(&ClusterConfig {
            cores: 2,
            hbm_bytes: 64 << 20,
            ..ClusterConfig::default()
        })
        .unwrap();
        cluster.cores[1].stats.cycles = 1000;
        let watch = Watch::attach(&mut cluster, [0, 1]);
        assert_eq!(watch.status(), (0, "0 0".to_string()));
        let published = |c: usize| cluster.cores[c].progress.clone().unwrap();
        published(0).publish(2_500_000);
        published(1).ended(1000 + 4096);
        assert_eq!(watch.status(), (1, "2.5M 4.1k".to_string()));
    }
}
