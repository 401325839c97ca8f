//! Timing profiles: `--timing FILE` of `q7emu run`, `run-elf` and `run-packed`
//! (docs/timing.md). A profile is a JSON object or a TOML table (by the file's extension,
//! `.json` or `.toml`) whose keys are fields of [`TimingModel`], each with an unsigned 32-bit
//! value; it is laid over the defaults, so a key it leaves out keeps its default. A key the model
//! does not have is refused naming it and the file, and a value of the wrong type naming the key
//! and the type it must have. Both formats read into the same JSON value first, so they give
//! the same model and the same errors.

use std::path::{Path, PathBuf};

use q7_emulator::TimingModel;
use q7_loader::input::{self, InputError, InputKind};
use serde_json::{Map, Value};

/// The timing model a run uses, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The profile file, or `None` for the defaults.
    pub source: Option<PathBuf>,
    /// The model.
    pub model: TimingModel,
}

impl Default for Profile {
    /// The defaults of [`TimingModel`].
    fn default() -> Self {
        Profile {
            source: None,
            model: TimingModel::default(),
        }
    }
}

/// Why a timing profile was refused, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file could not be read within its bound (PLATFORM.md "Input file limits").
    #[error(transparent)]
    Input(#[from] InputError),
    /// Neither `.json` nor `.toml`.
    #[error("{}: a timing profile is a .json or a .toml file", path.display())]
    Extension {
        /// The file.
        path: PathBuf,
    },
    /// The text does not parse in its format.
    #[error("{}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The parser's message, with the place.
        message: String,
    },
    /// The document is not one table of keys.
    #[error("{}: a timing profile is a table of keys, not {found}", path.display())]
    NotATable {
        /// The file.
        path: PathBuf,
        /// What the document is instead.
        found: &'static str,
    },
    /// A key the timing model does not have.
    #[error("{}: unknown key `{key}` (the timing model's keys: {})", path.display(), keys().join(", "))]
    UnknownKey {
        /// The file.
        path: PathBuf,
        /// The key.
        key: String,
    },
    /// The values are outside the model's bounds (`q7_emulator::timing::bounds`).
    #[error("{}: {source}", path.display())]
    Unusable {
        /// The file.
        path: PathBuf,
        /// Which key and why.
        source: q7_emulator::TimingError,
    },
    /// A value the key's field cannot hold.
    #[error("{}: key `{key}`: {message}", path.display())]
    WrongType {
        /// The file.
        path: PathBuf,
        /// The key.
        key: String,
        /// What is wrong, with the type the key takes (e.g. `invalid type: string "2",
        /// expected u32`).
        message: String,
    },
}

/// The model's fields as JSON, key by key (the field names of [`TimingModel`]).
fn fields(model: &TimingModel) -> Map<String, Value> {
    match serde_json::to_value(model) {
        Ok(Value::Object(map)) => map,
        _ => unreachable!("a struct of integers serialises to an object"),
    }
}

/// Every key a profile may have, in alphabetical order.
pub fn keys() -> Vec<String> {
    fields(&TimingModel::default()).keys().cloned().collect()
}

/// What kind of JSON value `v` is, for errors.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "a table",
    }
}

impl Profile {
    /// Reads the profile at `path` (`.json` or `.toml`).
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let bytes = input::read_file(path, InputKind::TimingProfile)?;
        Profile::parse(path, bytes)
    }

    /// The profile in `bytes`, read from `path` (whose extension, `.json` or `.toml`, says
    /// the syntax).
    pub fn parse(path: &Path, bytes: Vec<u8>) -> Result<Profile, ProfileError> {
        let syntax = |message: String| ProfileError::Syntax {
            path: path.to_path_buf(),
            message,
        };
        let text = String::from_utf8(bytes).map_err(|e| syntax(format!("not UTF-8 text: {e}")))?;
        let value = match path.extension().and_then(|e| e.to_str()) {
            Some("json") => {
                serde_json::from_str::<Value>(&text).map_err(|e| syntax(e.to_string()))?
            }
            Some("toml") => {
                toml::from_str::<Value>(&text).map_err(|e| syntax(e.to_string().trim().into()))?
            }
            _ => {
                return Err(ProfileError::Extension {
                    path: path.to_path_buf(),
                })
            }
        };
        Ok(Profile {
            source: Some(path.to_path_buf()),
            model: model_of(path, value)?,
        })
    }

    /// The keys whose values differ from the defaults, as `key value (default d)`.
    pub fn changes(&self) -> Vec<String> {
        let default = fields(&TimingModel::default());
        fields(&self.model)
            .into_iter()
            .filter(|(k, v)| default.get(k) != Some(v))
            .map(|(k, v)| format!("{k} {v} (default {})", default[&k]))
            .collect()
    }

    /// One line for reports: `timing: default`, or `timing: FILE` and the keys it changes.
    pub fn summary(&self) -> String {
        match &self.source {
            None => "timing: default".to_string(),
            Some(path) => {
                let changes = self.changes();
                let changes = if changes.is_empty() {
                    "no key changed".to_string()
                } else {
                    changes.join(", ")
                };
                format!("timing: {}: {changes}", path.display())
            }
        }
    }

    /// The JSON form for reports: `source` (the file or null) and `model` (every key).
    pub fn json(&self) -> Value {
        serde_json::json!({
            "source": self.source.as_ref().map(|p| p.display().to_string()),
            "model": self.model,
        })
    }
}

/// The model a profile document `value` gives, read from `path`. Each key is tried alone first,
/// so that an error names it.
fn model_of(path: &Path, value: Value) -> Result<TimingModel, ProfileError> {
    let Value::Object(map) = value else {
        return Err(ProfileError::NotATable {
            path: path.to_path_buf(),
            found: kind(&value),
        });
    };
    let known = fields(&TimingModel::default());
    for (key, v) in &map {
        if !known.contains_key(key) {
            return Err(ProfileError::UnknownKey {
                path: path.to_path_buf(),
                key: key.clone(),
            });
        }
        let alone = Value::Object(Map::from_iter([(key.clone(), v.clone())]));
        if let Err(e) = serde_json::from_value::<TimingModel>(alone) {
            return Err(ProfileError::WrongType {
                path: path.to_path_buf(),
                key: key.clone(),
                message: e.to_string(),
            });
        }
    }
    let model: TimingModel =
        serde_json::from_value(Value::Object(map)).map_err(|e| ProfileError::Syntax {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    model.check().map_err(|source| ProfileError::Unusable {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model(v: Value) -> Result<TimingModel, String> {
        model_of(Path::new("p.json"), v).map_err(|e| e.to_string())
    }

    #[test]
    fn a_model_outside_the_bounds_is_refused_naming_the_key() {
        assert_eq!(
            model(json!({ "icache_line": 0 })).unwrap_err(),
            "p.json: `icache_line` is 0: a power of two up to 4096"
        );
        assert_eq!(
            model(json!({ "issue": 0 })).unwrap_err(),
            "p.json: `issue` is 0: at least 1 (an instruction that takes no cycle would never end a budget)"
        );
    }

    #[test]
    fn keys_left_out_keep_their_defaults() {
        let m = model(json!({ "load_use": 3, "hbm_latency": 50 })).unwrap();
        assert_eq!(
            m,
            TimingModel {
                load_use: 3,
                hbm_latency: 50,
                ..TimingModel::default()
            }
        );
        assert_eq!(model(json!({})).unwrap(), TimingModel::default());
    }

    #[test]
    fn an_unknown_key_a_wrong_type_and_a_non_table_are_named() {
        assert_eq!(
            model(json!({ "load_uze": 3 })).unwrap_err(),
            format!(
                "p.json: unknown key `load_uze` (the timing model's keys: {})",
                keys().join(", ")
            )
        );
        assert_eq!(
            model(json!({ "divide": "32" })).unwrap_err(),
            "p.json: key `divide`: invalid type: string \"32\", expected u32"
        );
        assert_eq!(
            model(json!({ "divide": -1 })).unwrap_err(),
            "p.json: key `divide`: invalid value: integer `-1`, expected u32"
        );
        assert_eq!(
            model(json!({ "divide": 4294967296u64 })).unwrap_err(),
            "p.json: key `divide`: invalid value: integer `4294967296`, expected u32"
        );
        assert_eq!(
            model(json!([1])).unwrap_err(),
            "p.json: a timing profile is a table of keys, not an array"
        );
    }

    #[test]
    fn the_keys_are_the_fields_of_the_timing_model() {
        assert_eq!(keys().len(), 17);
        assert!(keys().contains(&"sram_latency".to_string()));
        assert!(keys().contains(&"load_use".to_string()));
        assert!(keys().contains(&"icache_line".to_string()));
    }

    #[test]
    fn the_summary_names_the_file_and_the_keys_it_changes() {
        assert_eq!(Profile::default().summary(), "timing: default");
        let p = Profile {
            source: Some("slow.toml".into()),
            model: TimingModel {
                load_use: 2,
                ..TimingModel::default()
            },
        };
        assert_eq!(p.summary(), "timing: slow.toml: load_use 2 (default 1)");
        assert_eq!(p.json()["source"], "slow.toml");
        assert_eq!(p.json()["model"]["load_use"], 2);
        assert_eq!(p.json()["model"]["divide"], 32);
    }
}
