//! The trace-event format's rules, strictly: the checker of `q7emu run --timeline` output
//! (docs/tracing.md "Timeline").

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// The keys an event may have.
const KEYS: [&str; 11] = [
    "name", "cat", "ph", "ts", "dur", "pid", "tid", "s", "id", "bp", "args",
];

/// Every breach of the trace-event rules in `doc`, as messages naming the event: the document
/// is an object with a `traceEvents` array; each event has the fields its `ph` requires and no
/// others; per track, B/E balance and nest (an E names the B it ends) with timestamps that never
/// go back, and complete events nest; every flow start has exactly one end after it with its
/// `cat`, `name` and `id`, and every end a start; every track an event is on is named by an `M`
/// `thread_name` event, and its process by `process_name`.
pub fn breaches(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(events) = doc.get("traceEvents").and_then(Value::as_array) else {
        return vec!["no traceEvents array".into()];
    };
    if let Some(unit) = doc.get("displayTimeUnit") {
        if unit != "ms" && unit != "ns" {
            out.push(format!("displayTimeUnit {unit}"));
        }
    }
    let mut stacks: BTreeMap<(u64, u64), Vec<(String, f64)>> = BTreeMap::new();
    let mut last_ts: BTreeMap<(u64, u64), f64> = BTreeMap::new();
    let mut complete: BTreeMap<(u64, u64), Vec<(f64, f64)>> = BTreeMap::new();
    let mut flows: BTreeMap<(String, String, u64), (f64, usize)> = BTreeMap::new();
    let mut used: BTreeSet<(u64, u64)> = BTreeSet::new();
    let mut named_threads: BTreeSet<(u64, u64)> = BTreeSet::new();
    let mut named_processes: BTreeSet<u64> = BTreeSet::new();
    for (i, e) in events.iter().enumerate() {
        let at = format!("event {i} {e}");
        let Some(obj) = e.as_object() else {
            out.push(format!("{at}: not an object"));
            continue;
        };
        for k in obj.keys() {
            if !KEYS.contains(&k.as_str()) {
                out.push(format!("{at}: unknown key {k}"));
            }
        }
        let ph = e["ph"].as_str().unwrap_or("");
        let (Some(pid), Some(tid)) = (e["pid"].as_u64(), e["tid"].as_u64()) else {
            out.push(format!("{at}: pid and tid must be integers"));
            continue;
        };
        let track = (pid, tid);
        let name = e.get("name").and_then(Value::as_str);
        let ts = e.get("ts").and_then(Value::as_f64);
        let need = |out: &mut Vec<String>, field: &str, ok: bool| {
            if !ok {
                out.push(format!("{at}: ph {ph} needs {field}"));
            }
        };
        if ph != "M" {
            need(&mut out, "ts >= 0", ts.is_some_and(|t| t >= 0.0));
            used.insert(track);
        }
        let ts = ts.unwrap_or(0.0);
        match ph {
            "B" | "E" => {
                if ph == "B" {
                    need(&mut out, "name", name.is_some());
                }
                if last_ts.get(&track).is_some_and(|&t| ts < t) {
                    out.push(format!("{at}: B/E timestamp goes back on its track"));
                }
                last_ts.insert(track, ts);
                let stack = stacks.entry(track).or_default();
                if ph == "B" {
                    stack.push((name.unwrap_or("").to_string(), ts));
                } else {
                    match stack.pop() {
                        None => out.push(format!("{at}: E without a B on its track")),
                        Some((b, _)) => {
                            if name.is_some_and(|n| n != b) {
                                out.push(format!("{at}: E ends {b:?}"));
                            }
                        }
                    }
                }
            }
            "X" => {
                need(&mut out, "name", name.is_some());
                let dur = e.get("dur").and_then(Value::as_f64);
                need(&mut out, "dur >= 0", dur.is_some_and(|d| d >= 0.0));
                let (b, end) = (ts, ts + dur.unwrap_or(0.0));
                let spans = complete.entry(track).or_default();
                if spans
                    .iter()
                    .any(|&(s, t)| (s < b && b < t && t < end) || (b < s && s < end && end < t))
                {
                    out.push(format!(
                        "{at}: overlaps a complete event of its track without nesting"
                    ));
                }
                spans.push((b, end));
            }
            "i" => {
                need(&mut out, "name", name.is_some());
                need(
                    &mut out,
                    "s of t, p or g",
                    matches!(e.get("s").and_then(Value::as_str), Some("t" | "p" | "g")),
                );
            }
            "C" => {
                need(&mut out, "name", name.is_some());
                need(
                    &mut out,
                    "args of numbers",
                    e.get("args")
                        .and_then(Value::as_object)
                        .is_some_and(|a| !a.is_empty() && a.values().all(Value::is_number)),
                );
            }
            "s" | "f" => {
                need(&mut out, "name", name.is_some());
                need(&mut out, "cat", e.get("cat").is_some_and(Value::is_string));
                let id = e.get("id").and_then(Value::as_u64);
                need(&mut out, "id", id.is_some());
                if let Some(bp) = e.get("bp") {
                    if ph == "s" || bp != "e" {
                        out.push(format!("{at}: bp {bp}"));
                    }
                }
                let key = (
                    e["cat"].as_str().unwrap_or("").to_string(),
                    name.unwrap_or("").to_string(),
                    id.unwrap_or(0),
                );
                if ph == "s" {
                    if flows.insert(key, (ts, 0)).is_some() {
                        out.push(format!("{at}: flow id started twice"));
                    }
                } else {
                    match flows.get_mut(&key) {
                        None => out.push(format!("{at}: flow end without a start")),
                        Some((start, ends)) => {
                            *ends += 1;
                            if ts < *start {
                                out.push(format!("{at}: flow ends before it starts"));
                            }
                        }
                    }
                }
            }
            "M" => {
                let args = e.get("args").and_then(Value::as_object);
                match name {
                    Some("process_name" | "thread_name") => {
                        need(
                            &mut out,
                            "args.name",
                            args.is_some_and(|a| a.get("name").is_some_and(Value::is_string)),
                        );
                        if name == Some("thread_name") {
                            named_threads.insert(track);
                        } else {
                            named_processes.insert(pid);
                        }
                    }
                    Some("thread_sort_index" | "process_sort_index") => need(
                        &mut out,
                        "args.sort_index",
                        args.is_some_and(|a| a.get("sort_index").is_some_and(Value::is_i64)),
                    ),
                    _ => out.push(format!("{at}: unknown metadata")),
                }
            }
            _ => out.push(format!("{at}: unknown ph {ph:?}")),
        }
    }
    for (track, stack) in &stacks {
        for (name, _) in stack {
            out.push(format!("track {track:?}: B {name:?} never ends"));
        }
    }
    for ((cat, name, id), (_, ends)) in &flows {
        if *ends != 1 {
            out.push(format!("flow {cat}/{name}/{id} has {ends} ends"));
        }
    }
    for track in &used {
        if !named_threads.contains(track) {
            out.push(format!("track {track:?} has no thread_name"));
        }
        if !named_processes.contains(&track.0) {
            out.push(format!("process {} has no process_name", track.0));
        }
    }
    out
}

/// The cycles the phase `name` spans on core `core`'s track of the timeline `doc` (its B and
/// E events' timestamps, microseconds at the platform's clock, back in cycles), added over
/// every span of it.
pub fn phase_cycles(doc: &Value, core: u32, name: &str) -> u64 {
    let cycles = |e: &Value| {
        (e["ts"].as_f64().unwrap() * q7_emulator::platform::map::CLOCK_HZ as f64 / 1e6).round()
            as u64
    };
    let mut total = 0;
    let mut begin = None;
    for e in doc["traceEvents"].as_array().unwrap() {
        if e["cat"] != "phase" || e["name"] != name || e["pid"] != u64::from(core) {
            continue;
        }
        match e["ph"].as_str() {
            Some("B") => begin = Some(cycles(e)),
            Some("E") => total += cycles(e) - begin.take().expect("an E after its B"),
            _ => {}
        }
    }
    total
}
