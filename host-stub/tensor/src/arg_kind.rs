//! The kinds of argument an op's schema declares, one row each (the table of the SDK header
//! `q7/customop_abi.h`, examples/sdk/BUILD.md "The wrapper").

/// One argument kind: how a schema spells it, what the user's function takes, which
/// `customop_next_*` of the runtime produces it, and its name in `q7build.json` — the table of
/// the SDK header `q7/customop_abi.h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgKind {
    /// A tensor (one ARG_TENSOR descriptor with an HBM or local address).
    Tensor,
    /// A scalar of either kind (`Scalar`, or its alias `number`).
    Scalar,
    /// A floating-point scalar (PyTorch `float`: a double).
    Float,
    /// An integer scalar (PyTorch `int`: 64 bits).
    Int,
    /// A boolean scalar.
    Bool,
}

impl ArgKind {
    /// Every kind.
    pub const ALL: [ArgKind; 5] = [
        ArgKind::Tensor,
        ArgKind::Scalar,
        ArgKind::Float,
        ArgKind::Int,
        ArgKind::Bool,
    ];

    /// The schema spellings of the kind.
    pub const fn spellings(self) -> &'static [&'static str] {
        match self {
            ArgKind::Tensor => &["Tensor"],
            ArgKind::Scalar => &["Scalar", "number"],
            ArgKind::Float => &["float"],
            ArgKind::Int => &["int"],
            ArgKind::Bool => &["bool"],
        }
    }

    /// The C++ parameter type of the user's function.
    pub const fn cxx_param(self) -> &'static str {
        match self {
            ArgKind::Tensor => "const at::Tensor&",
            ArgKind::Scalar => "const at::Scalar&",
            ArgKind::Float => "double",
            ArgKind::Int => "int64_t",
            ArgKind::Bool => "bool",
        }
    }

    /// The C++ type of the wrapper's local holding the argument.
    pub const fn cxx_value(self) -> &'static str {
        match self {
            ArgKind::Tensor => "const at::Tensor",
            ArgKind::Scalar => "const at::Scalar",
            ArgKind::Float => "const double",
            ArgKind::Int => "const int64_t",
            ArgKind::Bool => "const bool",
        }
    }

    /// The runtime function that takes the next argument of this kind.
    pub const fn next_fn(self) -> &'static str {
        match self {
            ArgKind::Tensor => "customop_next_tensor",
            ArgKind::Scalar => "customop_next_scalar",
            ArgKind::Float => "customop_next_double",
            ArgKind::Int => "customop_next_int64",
            ArgKind::Bool => "customop_next_bool",
        }
    }

    /// The kind a schema type spells, if supported.
    pub fn from_spelling(s: &str) -> Option<ArgKind> {
        ArgKind::ALL
            .into_iter()
            .find(|k| k.spellings().contains(&s))
    }
}
