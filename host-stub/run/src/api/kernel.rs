//! Building the library under test: [`Kernel`] runs the build driver of [`q7_kernel_build`] (the
//! same steps and outputs as `q7emu build`, examples/sdk/BUILD.md), and
//! [`toolchain_installed`] says whether the Xtensa toolchain it needs is there.

use std::path::{Path, PathBuf};

use super::ApiError;
use crate::op::Library;
use q7_kernel_build::schema;
use q7_kernel_build::BuildError;

/// Whether the Xtensa toolchain [`Kernel::build`] needs is installed at its default prefix
/// (`$Q7EMU_XTENSA_PREFIX`, else `~/.cache/xtensa-dc233c`). A test that calls this is marked
/// `#[q7_requires::toolchain]`, so that it shows as ignored where the toolchain is missing; the
/// one rule of [`q7_environment::requirement::Requirement::check`] holds when it runs anyway
/// (false, or with `$Q7EMU_REQUIRE_TOOLCHAIN` on a failure naming the missing tool).
pub fn toolchain_installed() -> bool {
    q7_environment::requirement::Requirement::Toolchain.check()
}

/// A library to build from C++ sources, as `q7emu build` does (examples/sdk/BUILD.md).
#[derive(Debug, Clone, Default)]
pub struct Kernel {
    name: Option<String>,
    schemas: Vec<String>,
    options: q7_kernel_build::Options,
}

impl Kernel {
    /// A kernel of `source` (a `.cpp`, `.cc`, `.cxx`, `.c` or `.S` file); the library is named
    /// after its stem unless [`Kernel::name`] says otherwise, each character a library name
    /// cannot hold made `_` (`my kernel.cpp` → `my_kernel`, examples/sdk/BUILD.md "Steps").
    pub fn new(source: impl AsRef<Path>) -> Kernel {
        Kernel::default().source(source)
    }

    /// Another source.
    pub fn source(mut self, source: impl AsRef<Path>) -> Kernel {
        self.options.sources.push(source.as_ref().to_path_buf());
        self
    }

    /// An op, by its schema (`affine(Tensor x, float a) -> Tensor`): the function is the one
    /// the schema names; ops take FunctionIds in the order given.
    pub fn op(mut self, schema: impl Into<String>) -> Kernel {
        self.schemas.push(schema.into());
        self
    }

    /// A shape source of a project (`--shape`, examples/sdk/BUILD.md "Projects"): the ops are
    /// then its `NEURON_LIBRARY` registrations (no [`Kernel::op`]), the sources given with
    /// [`Kernel::new`] and [`Kernel::source`] the compute sources, and each op's output shape
    /// and dtype what its shape function computes when it runs.
    pub fn shape(mut self, source: impl AsRef<Path>) -> Kernel {
        self.options.shape.push(source.as_ref().to_path_buf());
        self
    }

    /// The library's name (`--name`).
    pub fn name(mut self, name: impl Into<String>) -> Kernel {
        self.name = Some(name.into());
        self
    }

    /// Eight per-core images (`--multicore`).
    pub fn multicore(mut self) -> Kernel {
        self.options.multicore = true;
        self
    }

    /// A compiler flag (`--cflag`).
    pub fn cflag(mut self, flag: impl Into<String>) -> Kernel {
        self.options.cflags.push(flag.into());
        self
    }

    /// An include directory (`-I`).
    pub fn include(mut self, dir: impl AsRef<Path>) -> Kernel {
        self.options.includes.push(dir.as_ref().to_path_buf());
        self
    }

    /// The toolchain prefix (`--toolchain`).
    pub fn toolchain(mut self, prefix: impl AsRef<Path>) -> Kernel {
        self.options.toolchain = Some(prefix.as_ref().to_path_buf());
        self
    }

    /// The SDK directory (`--sdk`).
    pub fn sdk(mut self, dir: impl AsRef<Path>) -> Kernel {
        self.options.sdk = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Echo every command and show the compiler's output on failure (`--verbose`).
    pub fn verbose(mut self) -> Kernel {
        self.options.verbose = true;
        self
    }

    /// Builds into `build_dir` (created if missing; what is there is overwritten) and opens
    /// the result.
    pub fn build(self, build_dir: impl AsRef<Path>) -> Result<Library, ApiError> {
        self.build_with_inputs(build_dir).map(|(lib, _)| lib)
    }

    /// [`Kernel::build`], and every file the build's compilers read (absolute, in path order;
    /// [`q7_kernel_build::build_with_inputs`]): what decides whether the build is up to date.
    pub fn build_with_inputs(
        self,
        build_dir: impl AsRef<Path>,
    ) -> Result<(Library, Vec<PathBuf>), ApiError> {
        let first = self.options.sources.first().ok_or(ApiError::NoSource)?;
        let name = match &self.name {
            Some(n) => n.clone(),
            None => q7_kernel_build::library_name_from(first)?,
        };
        if self.schemas.is_empty() && self.options.shape.is_empty() {
            return Err(ApiError::NoOp(name));
        }
        let fns = self
            .schemas
            .iter()
            .map(|s| schema::parse(s).map(|p| p.name).map_err(BuildError::Schema))
            .collect::<Result<Vec<_>, _>>()?;
        let opts = q7_kernel_build::Options {
            name,
            fns,
            schemas: self.schemas,
            build_dir: build_dir.as_ref().to_path_buf(),
            ..self.options
        };
        let (_, inputs) = q7_kernel_build::build_with_inputs(&opts)?;
        Ok((Library::open(&opts.build_dir)?, inputs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_need_a_source_and_an_op_with_a_schema() {
        let dir = std::env::temp_dir().join("q7-testing-unbuilt");
        assert_eq!(
            Kernel::new("k.cpp").build(&dir).unwrap_err().to_string(),
            "kernel k has no op: give one with Kernel::op"
        );
        assert_eq!(
            Kernel::default()
                .op("f() -> Tensor")
                .build(&dir)
                .unwrap_err()
                .to_string(),
            "a kernel needs a source file"
        );
        assert!(matches!(
            Kernel::new("k.cpp").op("f(Tensor x -> Tensor").build(&dir),
            Err(ApiError::Build(e)) if matches!(*e, BuildError::Schema(_))
        ));
        assert!(!dir.exists(), "nothing is built before the arguments check");
    }

    #[test]
    fn a_library_named_after_a_source_the_name_cannot_come_from_says_so() {
        let dir = std::env::temp_dir().join("q7-testing-unnamed");
        assert_eq!(
            Kernel::new("src/..cpp")
                .op("f() -> Tensor")
                .build(&dir)
                .unwrap_err()
                .to_string(),
            "the library name \".\" derived from the source src/..cpp cannot name the \
             library's files: give one (Kernel::name)"
        );
        assert!(!dir.exists());
    }
}
