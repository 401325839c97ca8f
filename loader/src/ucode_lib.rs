//! The compiler-side custom-op library registry and `ucode_lib.json`
//! (PLATFORM.md "`ucode_lib.json` and the library registry").
//!
//! * `add_lib_file` registers a library by file name; registering it again with the same
//!   version strings is a no-op, with different ones an error (the dedup + version guard);
//! * `allocate_function_id` hands out dense ids 0, 1, 2, … per module; a module holds at most
//!   254 functions (the sub-opcode byte reserves 0xFF);
//! * `add_function` binds a function to an id truncated to one byte (the sub-opcode);
//! * `to_json` writes `ucode_lib.json`: keys in the seed's order, `opcode` always the signed
//!   integer 133, unsigned `cpu_id`/`total_cpus`/`sub_opcode`, boolean `is_builtin`.
//!
//! Libraries and functions keep insertion order (the seed's containers are unordered; this is
//! our deterministic choice). The JSON is indented by two spaces (ours).

use serde::Serialize;

/// The constant custom-op opcode (0x85) every function entry carries.
pub const CUSTOM_OP_OPCODE: i32 = 133;
/// Most unique custom-op functions per module.
pub const MAX_FUNCTIONS: u32 = 254;

/// Registry errors, with the messages of the seed where it gives them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// Same library registered with different version strings.
    #[error("custom op library {library} registered twice with different versions: ucode {had_ucode:?} vs {new_ucode:?}, isa {had_isa:?} vs {new_isa:?}")]
    VersionMismatch {
        /// Library file name.
        library: String,
        /// Version strings already registered.
        had_ucode: String,
        /// New ucode version.
        new_ucode: String,
        /// Registered ISA version.
        had_isa: String,
        /// New ISA version.
        new_isa: String,
    },
    /// A function for a library that was never registered.
    #[error("custom op function {function} added to unknown library {library}")]
    UnknownLibrary {
        /// Library file name.
        library: String,
        /// Function name.
        function: String,
    },
    /// More than 254 functions.
    #[error("Number of unique custom op functions cannot exceed {MAX_FUNCTIONS}")]
    TooManyFunctions,
}

/// One registered library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibInfo {
    /// File name (the registry key).
    pub file_name: String,
    /// ulib_to_ucode_version.
    pub ulib_to_ucode_version: String,
    /// ulib_to_isa_version.
    pub ulib_to_isa_version: String,
    /// Built-in library.
    pub is_builtin: bool,
    /// Core the library is linked for.
    pub cpu_id: u8,
    /// Cores of the library set (1 or 8).
    pub total_cpus: u8,
    /// Functions and their sub-opcodes.
    pub functions: Vec<(String, u8)>,
}

/// A module's custom-op libraries and function ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registry {
    libs: Vec<LibInfo>,
    next_function_id: u32,
}

#[derive(serde::Deserialize)]
struct ParsedFunction {
    name: String,
    opcode: i64,
    sub_opcode: u8,
}

#[derive(serde::Deserialize)]
struct ParsedLib {
    library: String,
    ulib_to_ucode_version: String,
    ulib_to_isa_version: String,
    is_builtin: bool,
    cpu_id: u8,
    total_cpus: u8,
    functions: Vec<ParsedFunction>,
}

#[derive(serde::Deserialize)]
struct ParsedDoc {
    ucode_lib: Vec<ParsedLib>,
}

/// Why a `ucode_lib.json` does not parse.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// Not the schema.
    #[error("ucode_lib.json: {0}")]
    Json(#[from] serde_json::Error),
    /// A function entry whose opcode is not 133.
    #[error("ucode_lib.json: function {function} of {library} has opcode {opcode}, expected 133")]
    Opcode {
        /// Library.
        library: String,
        /// Function.
        function: String,
        /// Opcode found.
        opcode: i64,
    },
    /// Registry rules (duplicate library with other versions, too many functions).
    #[error("ucode_lib.json: {0}")]
    Registry(#[from] RegistryError),
}

#[derive(Serialize)]
struct JsonFunction<'a> {
    name: &'a str,
    opcode: i32,
    sub_opcode: u8,
}

#[derive(Serialize)]
struct JsonLib<'a> {
    library: &'a str,
    ulib_to_ucode_version: &'a str,
    ulib_to_isa_version: &'a str,
    is_builtin: bool,
    cpu_id: u8,
    total_cpus: u8,
    functions: Vec<JsonFunction<'a>>,
}

#[derive(Serialize)]
struct JsonDoc<'a> {
    ucode_lib: Vec<JsonLib<'a>>,
}

impl Registry {
    /// Registers a library (idempotent for identical versions).
    pub fn add_lib_file(
        &mut self,
        file_name: &str,
        ulib_to_ucode_version: &str,
        ulib_to_isa_version: &str,
        is_builtin: bool,
        cpu_id: u8,
        total_cpus: u8,
    ) -> Result<(), RegistryError> {
        if let Some(l) = self.libs.iter().find(|l| l.file_name == file_name) {
            if l.ulib_to_ucode_version == ulib_to_ucode_version
                && l.ulib_to_isa_version == ulib_to_isa_version
            {
                return Ok(());
            }
            return Err(RegistryError::VersionMismatch {
                library: file_name.to_string(),
                had_ucode: l.ulib_to_ucode_version.clone(),
                new_ucode: ulib_to_ucode_version.to_string(),
                had_isa: l.ulib_to_isa_version.clone(),
                new_isa: ulib_to_isa_version.to_string(),
            });
        }
        self.libs.push(LibInfo {
            file_name: file_name.to_string(),
            ulib_to_ucode_version: ulib_to_ucode_version.to_string(),
            ulib_to_isa_version: ulib_to_isa_version.to_string(),
            is_builtin,
            cpu_id,
            total_cpus,
            functions: Vec::new(),
        });
        Ok(())
    }

    /// The next function id (dense per module), refusing the 255th.
    pub fn allocate_function_id(&mut self) -> Result<u32, RegistryError> {
        if self.next_function_id >= MAX_FUNCTIONS {
            return Err(RegistryError::TooManyFunctions);
        }
        let id = self.next_function_id;
        self.next_function_id += 1;
        Ok(id)
    }

    /// Binds `function` of `library` to `id`, truncated to its low byte (the sub-opcode). A
    /// function already bound keeps its first id.
    pub fn add_function(
        &mut self,
        library: &str,
        function: &str,
        id: u32,
    ) -> Result<(), RegistryError> {
        let lib = self
            .libs
            .iter_mut()
            .find(|l| l.file_name == library)
            .ok_or_else(|| RegistryError::UnknownLibrary {
                library: library.to_string(),
                function: function.to_string(),
            })?;
        if !lib.functions.iter().any(|(f, _)| f == function) {
            lib.functions.push((function.to_string(), id as u8));
        }
        Ok(())
    }

    /// Registered libraries, in registration order.
    pub fn libraries(&self) -> &[LibInfo] {
        &self.libs
    }

    /// Reads a `ucode_lib.json` back into a registry (schema-checked; the registry rules apply).
    pub fn from_json(text: &str) -> Result<Registry, ParseError> {
        let doc: ParsedDoc = serde_json::from_str(text)?;
        let mut r = Registry::default();
        for lib in doc.ucode_lib {
            r.add_lib_file(
                &lib.library,
                &lib.ulib_to_ucode_version,
                &lib.ulib_to_isa_version,
                lib.is_builtin,
                lib.cpu_id,
                lib.total_cpus,
            )?;
            for f in lib.functions {
                if f.opcode != i64::from(CUSTOM_OP_OPCODE) {
                    return Err(ParseError::Opcode {
                        library: lib.library,
                        function: f.name,
                        opcode: f.opcode,
                    });
                }
                r.allocate_function_id()?;
                r.add_function(&lib.library, &f.name, u32::from(f.sub_opcode))?;
            }
        }
        Ok(r)
    }

    /// `ucode_lib.json`; `None` for an empty registry (nothing is emitted then).
    pub fn to_json(&self) -> Option<String> {
        if self.libs.is_empty() {
            return None;
        }
        let doc = JsonDoc {
            ucode_lib: self
                .libs
                .iter()
                .map(|l| JsonLib {
                    library: &l.file_name,
                    ulib_to_ucode_version: &l.ulib_to_ucode_version,
                    ulib_to_isa_version: &l.ulib_to_isa_version,
                    is_builtin: l.is_builtin,
                    cpu_id: l.cpu_id,
                    total_cpus: l.total_cpus,
                    functions: l
                        .functions
                        .iter()
                        .map(|(n, s)| JsonFunction {
                            name: n,
                            opcode: CUSTOM_OP_OPCODE,
                            sub_opcode: *s,
                        })
                        .collect(),
                })
                .collect(),
        };
        Some(serde_json::to_string_pretty(&doc).expect("plain data serializes") + "\n")
    }
}
