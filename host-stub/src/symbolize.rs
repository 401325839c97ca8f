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
        self.describe_at(addr, addr)
    }

    /// [`Symbols::describe`] of a return address: the call before it may be the last
    /// instruction of its function (a call that never returns), so the function is the one
    /// holding `addr - 1`; the offset is still `addr`'s.
    pub fn describe_return(&self, addr: u32) -> Option<String> {
        self.describe_at(addr.checked_sub(1)?, addr)
    }

    /// `name+0xoff` of `addr` in the function that holds `inside`.
    fn describe_at(&self, inside: u32, addr: u32) -> Option<String> {
        let i = self
            .funcs
            .partition_point(|f| f.0 <= inside)
            .checked_sub(1)?;
        let (start, size, name) = &self.funcs[i];
        let holds = if *size != 0 {
            inside - start < *size
        } else {
            self.funcs.get(i + 1).is_none_or(|next| inside < next.0)
        };
        holds.then(|| match addr - start {
            0 => name.clone(),
            off => format!("{name}+{off:#x}"),
        })
    }
}

impl Symbols {
    /// The frames of `report` that have a symbol, one line each (`  #i 0xpc in name+0xoff`)
    /// under a heading naming `source`; empty when none has.
    pub fn backtrace(&self, report: &q7_emulator::FaultReport, source: &str) -> String {
        let mut out = String::new();
        let returns = report.backtrace.iter().skip(1).map(|f| f.pc);
        for (i, pc) in std::iter::once(report.pc).chain(returns).enumerate() {
            let name = match i {
                0 => self.describe(pc),
                _ => self.describe_return(pc),
            };
            if let Some(name) = name {
                out.push_str(&format!("\n  #{i} {pc:#010x} in {name}"));
            }
        }
        if out.is_empty() {
            out
        } else {
            format!("\nsymbolised backtrace ({source}):{out}")
        }
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
        assert_eq!(
            s.describe_return(0x8400_0084).as_deref(),
            Some("c+0x4"),
            "a return address just past c is a call at c's end"
        );
        assert_eq!(s.describe_return(0x8400_0020), None, "a's call is before a");
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
