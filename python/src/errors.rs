//! The exceptions the extension raises: the classes of `q7emu.errors`
//! (python/q7emu/errors.py, docs/python.md "Errors"), each a Rust type that imports its class
//! once, on its first use, and keeps it (`import_exception!`), so raising one is a typed
//! constructor and never a look-up by name.

use pyo3::import_exception;

import_exception!(q7emu.errors, BuildError);
import_exception!(q7emu.errors, KernelFaultError);
import_exception!(q7emu.errors, RunawayError);
import_exception!(q7emu.errors, ShapeFunctionError);
import_exception!(q7emu.errors, CheckFailedError);
import_exception!(q7emu.errors, BadInputError);
