//! Device addresses → `function+offset`, from the function symbols of an unstripped image
//! (a build directory's `<base>[_cpu{i}].so`, linked at its device addresses). C++ names are
//! demangled with `cpp_demangle`.

use q7_loader::elf::ElfFile;

/// ELF symbol type of a function (`STT_FUNC`).
const STT_FUNC: u8 = object::elf::STT_FUNC;

/// The function symbols of one image, sorted by address.
#[derive(Debug, Clone, Default)]
pub struct Symbols {
    funcs: Vec<(u32, u32, String)>,
}

impl Symbols {
    /// The function symbols of ELF bytes `data`; none when it does not parse or has no
    /// symbol table (a stripped image).
    pub fn from_elf(data: &[u8]) -> Symbols {
        let Ok(elf) = ElfFile::parse(data) else {
            return Symbols::default();
        };
        let mut funcs: Vec<(u32, u32, String)> = elf
            .symbols
            .iter()
            .filter(|s| s.kind == STT_FUNC && !s.name.is_empty() && s.value != 0)
            .map(|s| (s.value, s.size, demangle(&s.name)))
            .collect();
        funcs.sort();
        funcs.dedup_by_key(|f| f.0);
        Symbols { funcs }
    }

    /// Whether there is any symbol.
    pub fn is_empty(&self) -> bool {
        self.funcs.is_empty()
    }

    /// `name+0xoff` of the function holding `addr`, if one does (within its size, or before
    /// the next symbol when the size is 0).
    pub fn describe(&self, addr: u32) -> Option<String> {
        let i = self.funcs.partition_point(|f| f.0 <= addr).checked_sub(1)?;
        let (start, size, name) = &self.funcs[i];
        let inside = if *size != 0 {
            addr - start < *size
        } else {
            self.funcs.get(i + 1).is_none_or(|next| addr < next.0)
        };
        inside.then(|| match addr - start {
            0 => name.clone(),
            off => format!("{name}+{off:#x}"),
        })
    }
}

/// The demangled form of a C++ symbol name, or the name itself.
pub fn demangle(name: &str) -> String {
    cpp_demangle::Symbol::new(name)
        .ok()
        .and_then(|s| s.demangle().ok())
        .unwrap_or_else(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_resolve_inside_sized_functions_only() {
        let s = Symbols {
            funcs: vec![
                (0x8400_0020, 0x10, "a".into()),
                (0x8400_0040, 0, "b".into()),
                (0x8400_0080, 4, "c".into()),
            ],
        };
        assert_eq!(s.describe(0x8400_0020).as_deref(), Some("a"));
        assert_eq!(s.describe(0x8400_002f).as_deref(), Some("a+0xf"));
        assert_eq!(s.describe(0x8400_0030), None, "past a's size");
        assert_eq!(
            s.describe(0x8400_007f).as_deref(),
            Some("b+0x3f"),
            "b runs to c"
        );
        assert_eq!(s.describe(0x8400_0084), None);
        assert_eq!(s.describe(0x10), None);
    }

    #[test]
    fn cxx_names_are_demangled() {
        assert_eq!(
            demangle("_Z12relu_forwardRKN2at6TensorE"),
            "relu_forward(at::Tensor const&)"
        );
        assert_eq!(demangle("get_func_cnt"), "get_func_cnt");
    }
}
