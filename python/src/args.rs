//! The arguments and options of a call from Python, each checked as `q7emu run` checks its
//! flags (docs/python.md "Calling ops"): a bad one is `BadInputError` naming the option or the
//! argument, with the command line's own message where it has one (the scalar grammar, the
//! thread count, the cycle budget, the tensor size limit).

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use q7_conventions::number::{parse_threads, parse_u64};
use q7_emulator::platform::trace_port::Poison;
use q7_run::api::Run;
use q7_runtime::timing_profile::Profile;
use q7_tensor::dtype::Dtype;

use crate::errors::BadInputError;

/// `BadInputError` with `message`.
pub fn bad(message: String) -> PyErr {
    BadInputError::new_err(message)
}

/// The qualified name of `value`'s type, as messages give it (`int`, `numpy.str_`).
pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    let t = value.get_type();
    let name = t.name().map(|n| n.to_string()).unwrap_or_default();
    match t.module().map(|m| m.to_string()) {
        Ok(m) if m != "builtins" => format!("{m}.{name}"),
        _ => name,
    }
}

/// `value`, an integer (a Python `int` or an object with `__index__`, such as a numpy
/// integer; not a bool), as the decimal text the command line's parsers read; `BadInputError`
/// naming `what` otherwise.
fn int_text(what: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let not_int = || bad(format!("{what}: an int, not {}", type_name(value)));
    if value.is_instance_of::<PyBool>() || value.extract::<bool>().is_ok() {
        return Err(not_int());
    }
    let int = if value.is_instance_of::<PyInt>() {
        value.clone()
    } else {
        value
            .py()
            .import("operator")?
            .call_method1("index", (value,))
            .map_err(|_| not_int())?
    };
    Ok(int.str()?.to_string())
}

/// The op name `op`: a `str`.
pub fn op_name(op: &Bound<'_, PyAny>) -> PyResult<String> {
    op.extract::<String>()
        .map_err(|_| bad(format!("op: a name (str), not {}", type_name(op))))
}

/// `threads`: an int of at least 1, as `--threads` takes it.
pub fn threads(value: &Bound<'_, PyAny>) -> PyResult<usize> {
    let text = int_text("threads", value)?;
    parse_threads(&text).map_err(|e| bad(format!("threads: {e}")))
}

/// `max_cycles`: an int from 0 to 2^64 - 1, as `--max-cycles` takes it.
pub fn max_cycles(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    let text = int_text("max_cycles", value)?;
    parse_u64(&text).map_err(|e| bad(format!("max_cycles: {e}")))
}

/// A flag option (`check`): a bool (Python's or numpy's).
pub fn flag(what: &str, value: &Bound<'_, PyAny>) -> PyResult<bool> {
    value
        .extract::<bool>()
        .map_err(|_| bad(format!("{what}: a bool, not {}", type_name(value))))
}

/// `poison`: `"nan"` or `"pattern"`, as `--poison` takes it.
pub fn poison(value: &Bound<'_, PyAny>) -> PyResult<Poison> {
    match value.extract::<String>().as_deref() {
        Ok("nan") => Ok(Poison::Nan),
        Ok("pattern") => Ok(Poison::Pattern),
        Ok(p) => Err(bad(format!(
            "poison {p:?}: the poison is \"nan\" or \"pattern\""
        ))),
        Err(_) => Err(bad(format!(
            "poison: \"nan\" or \"pattern\", not {}",
            type_name(value)
        ))),
    }
}

/// The dtype of numpy name `name` (`what` names where it was given), or `BadInputError`.
pub fn dtype_named(what: &str, name: &str) -> PyResult<Dtype> {
    Dtype::from_name(name).ok_or_else(|| {
        bad(format!(
            "{what} {name}: not a dtype q7emu marshals (float32, float16, bfloat16, int8, \
             uint8, int16, int32, int64)"
        ))
    })
}

/// `out_dtype`: a dtype name.
pub fn out_dtype(value: &Bound<'_, PyAny>) -> PyResult<Dtype> {
    let name = value.extract::<String>().map_err(|_| {
        bad(format!(
            "out_dtype: a dtype name (str), not {}",
            type_name(value)
        ))
    })?;
    dtype_named("out_dtype", &name)
}

/// `out_shape`: a list or tuple of ints, each from 0 to 2^64 - 1 as `--out-shape` takes it
/// (the run then checks the shape as a whole).
pub fn out_shape(value: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    if !(value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>()) {
        return Err(bad(format!(
            "out_shape: a list or tuple of ints, not {}",
            type_name(value)
        )));
    }
    let mut shape = Vec::new();
    for (i, d) in value.try_iter()?.enumerate() {
        let what = format!("out_shape[{i}]");
        let text = int_text(&what, &d?)?;
        shape.push(parse_u64(&text).map_err(|e| bad(format!("{what}: {e}")))?);
    }
    Ok(shape)
}

/// A path option (`trace_dir`, `timeline`): a `str`, `bytes` or `os.PathLike` (the run
/// checks the path itself).
pub fn path(what: &str, value: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    value.extract::<PathBuf>().map_err(|_| {
        bad(format!(
            "{what}: a path (str or os.PathLike), not {}",
            type_name(value)
        ))
    })
}

/// `run` with `scalars` as its next scalar arguments: a bool as `true`/`false`, an int as its
/// exact decimal text and a float as itself, each read by the scalar grammar of `q7emu run
/// --scalar` against its argument's type when the op runs (docs/cli.md "Scalars"), so that
/// an int past int64 is refused naming it exactly. Anything else is `BadInputError` naming the
/// scalar's position.
pub fn with_scalars(mut run: Run, scalars: &[Bound<'_, PyAny>]) -> PyResult<Run> {
    for (i, s) in scalars.iter().enumerate() {
        run = if s.is_instance_of::<PyBool>() {
            run.scalar(s.extract::<bool>()?)
        } else if s.is_instance_of::<PyInt>() {
            run.scalar(s.str()?.to_string())
        } else if s.is_instance_of::<PyFloat>() {
            run.scalar(s.extract::<f64>()?)
        } else if let Ok(b) = s.extract::<bool>() {
            // numpy.bool_
            run.scalar(b)
        } else {
            return Err(bad(format!(
                "scalar argument {i}: a bool, int or float, not {}",
                type_name(s)
            )));
        };
    }
    Ok(run)
}

/// The bytes of tensor argument `what`, `array`: a C-contiguous `numpy.ndarray` (exactly that
/// type) of `want` bytes, copied once into Rust memory.
pub fn array_bytes(
    py: Python<'_>,
    what: &str,
    array: &Bound<'_, PyAny>,
    want: u64,
) -> PyResult<Vec<u8>> {
    let ndarray = py.import("numpy")?.getattr("ndarray")?;
    if !array.get_type().is(&ndarray) {
        return Err(bad(format!(
            "{what}: a numpy.ndarray, not {}",
            type_name(array)
        )));
    }
    let interface = array.getattr("__array_interface__")?;
    let (address, _read_only): (usize, bool) = interface.get_item("data")?.extract()?;
    let c_order = interface.get_item("strides")?.is_none();
    let bytes: u64 = array.getattr("nbytes")?.extract()?;
    if !c_order || bytes != want {
        return Err(bad(format!("{what}: a C-contiguous array of {want} bytes, not {bytes} bytes (C-contiguous: {c_order})"),
        ));
    }
    if bytes == 0 {
        return Ok(Vec::new());
    }
    let len = usize::try_from(bytes).map_err(|_| bad(format!("{what}: {bytes} bytes")))?;
    // SAFETY: `array` is a numpy.ndarray (its exact type, so `__array_interface__` is numpy's
    // own), C-contiguous (no strides), whose data is `len` bytes from `address`; the reference
    // held to it and the GIL keep numpy from freeing or reallocating that data while it is
    // copied here (numpy refuses to resize an array that is referenced).
    let data = unsafe { std::slice::from_raw_parts(address as *const u8, len) };
    Ok(data.to_vec())
}

/// The timing profile `timing` names: a `.json` or `.toml` file (a path), or a dict of
/// timing-model fields (docs/timing.md), as `q7emu run --timing` takes them; `BadInputError` when
/// it is neither, a field is not a JSON value (a NaN or an infinity included: named), or the
/// profile is refused.
pub fn timing_profile(py: Python<'_>, timing: &Bound<'_, PyAny>) -> PyResult<Profile> {
    if let Ok(path) = timing.extract::<PathBuf>() {
        return Profile::load(&path).map_err(|e| bad(e.to_string()));
    }
    if timing.is_instance_of::<PyDict>() {
        let value = json_value(py, "", timing)?;
        let text = serde_json::to_vec(&value).expect("JSON values serialize");
        return Profile::parse(std::path::Path::new("timing.json"), text)
            .map_err(|e| bad(format!("timing (a dict): {e}")));
    }
    Err(bad(format!(
        "timing: a profile file's path or a dict of timing-model fields, not {}",
        type_name(timing)
    )))
}

/// `value`, the field `field` of a timing dict (`""` for the dict itself), as a JSON value:
/// dicts with str keys, lists, str, bool, ints, finite floats, None; numpy scalars as their
/// Python value.
fn json_value(
    py: Python<'_>,
    field: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<serde_json::Value> {
    use serde_json::Value;
    let refuse = |why: String| match field {
        "" => bad(format!("timing (a dict): {why}")),
        _ => bad(format!("timing (a dict): field {field}: {why}")),
    };
    let numpy_generic = py.import("numpy")?.getattr("generic")?;
    if value.is_instance(&numpy_generic)? {
        return json_value(py, field, &value.call_method0("item")?);
    }
    if value.is_none() {
        return Ok(Value::Null);
    }
    if value.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(value.extract()?));
    }
    if value.is_instance_of::<PyInt>() {
        if let Ok(i) = value.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = value.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(refuse(format!("{} is past a 64-bit integer", value.str()?)));
    }
    if value.is_instance_of::<PyFloat>() {
        let f: f64 = value.extract()?;
        return serde_json::Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| refuse(format!("{f} is not a finite number")));
    }
    if value.is_instance_of::<PyString>() {
        return Ok(Value::String(value.extract()?));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, v) in dict.iter() {
            let key: String = k
                .extract()
                .map_err(|_| refuse(format!("a key is a {}, not a str", type_name(&k))))?;
            let inner = if field.is_empty() {
                key.clone()
            } else {
                format!("{field}.{key}")
            };
            map.insert(key, json_value(py, &inner, &v)?);
        }
        return Ok(Value::Object(map));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for (i, v) in value.try_iter()?.enumerate() {
            items.push(json_value(py, &format!("{field}[{i}]"), &v?)?);
        }
        return Ok(Value::Array(items));
    }
    Err(refuse(format!(
        "a {}, not a number, str, bool, list or dict",
        type_name(value)
    )))
}
