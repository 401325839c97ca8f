//! Scalar arguments of an op (`q7emu run --scalar`, `q7_testing::Run::scalar`): one
//! grammar per schema type, [`parse_scalar`] (docs/cli.md "Scalars"; numeric flags have
//! theirs, `q7_conventions::number`):
//!
//! | schema type | takes | descriptor |
//! |---|---|---|
//! | `int` | an integer | int64 |
//! | `float` | a number: an integer or a decimal fraction, `inf`, `nan` | double |
//! | `bool` | `true` or `false` (`True`, `False`, `1`, `0`) | int64 1 or 0 |
//! | `Scalar` (`number`) | an integer, a decimal fraction, `inf`, `nan`, `true` or `false` | int64 for an integer or a bool, double otherwise |
//!
//! An integer is decimal or `0x` hex with an optional sign (`-3`, `0x10`, `-0x10`) and must fit
//! int64; a decimal fraction has a `.` or an exponent (`0.5`, `-2.`, `1e-3`) and must be a
//! finite double that is not a non-zero value rounded to 0 (`1e400` and `1e-400` are refused
//! rather than read as `inf` and `0`); `inf`, `-inf` and `nan` are written so. Whitespace
//! around the value is ignored. A refusal names the value, why, and the forms the argument's
//! type takes ([`accepted_forms`]).

use crate::arg_kind::ArgKind;
use crate::descriptor::ScalarValue;

/// What the scalar text of an argument of `kind` may be, for messages and docs/cli.md.
pub const fn accepted_forms(kind: ArgKind) -> &'static str {
    match kind {
        ArgKind::Int => {
            "an int is an integer, decimal or 0x hex with an optional sign (-3, 0x10, -0x10), \
             from -9223372036854775808 to 9223372036854775807"
        }
        ArgKind::Float => {
            "a float is a number: an integer (decimal or 0x hex), a decimal fraction (0.5, \
             -2., 1e-3) within the range of a double, inf, -inf or nan"
        }
        ArgKind::Bool => "a bool is true or false (also True, False, 1, 0)",
        ArgKind::Scalar | ArgKind::Tensor => {
            "a Scalar is an integer (decimal or 0x hex, sent as an int64), a decimal fraction \
             (0.5, 1e-3) within the range of a double, inf, -inf, nan, or true or false (sent \
             as the int64 1 or 0)"
        }
    }
}

/// A scalar text that its argument's type does not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{why}: {}", accepted_forms(*.kind))]
pub struct ScalarError {
    /// The argument's type.
    pub kind: ArgKind,
    /// Why the text was refused.
    pub why: String,
}

/// A number as the scalar grammar reads it.
enum Number {
    /// An integer (decimal or hex), exactly.
    Integer(i128),
    /// A decimal integer past what an `i128` holds, as the nearest double (`inf` when past
    /// every double too).
    Big(f64),
    /// A decimal fraction, `inf` or `nan`.
    Fraction(f64),
}

/// Why a decimal number is no double: too large, or a non-zero value too small.
fn out_of_double(v: f64) -> String {
    if v.is_infinite() {
        format!(
            "out of the range of a double (its magnitude is at most {:e}), it is not read as inf",
            f64::MAX
        )
    } else {
        format!(
            "too small for a double (the least non-zero magnitude is {:e}), it is not read as 0",
            f64::from_bits(1)
        )
    }
}

/// `text` (trimmed) as a number of the scalar grammar, or why it is none.
fn scalar_number(text: &str) -> Result<Number, String> {
    let lower = text.to_ascii_lowercase();
    let (negative, unsigned) = match lower.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, lower.strip_prefix('+').unwrap_or(&lower)),
    };
    match unsigned {
        "inf" | "infinity" => {
            return Ok(Number::Fraction(if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }))
        }
        "nan" if unsigned.len() == lower.len() => return Ok(Number::Fraction(f64::NAN)),
        _ => {}
    }
    let integer = |digits: &str, radix: u32| {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return Err("not a number".to_string());
        }
        match i128::from_str_radix(digits, radix) {
            Ok(v) => Ok(Number::Integer(if negative { -v } else { v })),
            // Decimal digits past an i128 are still a double (or too large for one).
            Err(_) if radix == 10 => Ok(Number::Big(text.parse().unwrap_or(f64::INFINITY))),
            Err(_) => Err("out of the range of an int64".to_string()),
        }
    };
    if let Some(hex) = unsigned.strip_prefix("0x") {
        return integer(hex, 16);
    }
    if unsigned.chars().all(|c| c.is_ascii_digit()) {
        return integer(unsigned, 10);
    }
    let (mantissa, exponent) = match unsigned.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (unsigned, None),
    };
    let mantissa_ok = mantissa.chars().any(|c| c.is_ascii_digit())
        && mantissa.chars().all(|c| c.is_ascii_digit() || c == '.')
        && mantissa.matches('.').count() <= 1;
    let exponent_ok = exponent.is_none_or(|e| {
        let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
        !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
    });
    if !mantissa_ok || !exponent_ok {
        return Err("not a number".to_string());
    }
    let v: f64 = text.parse().map_err(|_| "not a number".to_string())?;
    if v.is_infinite() || (v == 0.0 && mantissa.chars().any(|c| matches!(c, '1'..='9'))) {
        return Err(out_of_double(v));
    }
    Ok(Number::Fraction(v))
}

/// An int64 from an exact integer, or why it does not fit.
fn int64(v: i128) -> Result<i64, String> {
    i64::try_from(v).map_err(|_| "out of the range of an int64".to_string())
}

/// The descriptor value of scalar text `text` for an argument of schema type `kind`
/// (the grammar of this module's table); a [`ScalarError`] listing the forms `kind` takes
/// when the text is not one of them.
pub fn parse_scalar(kind: ArgKind, text: &str) -> Result<ScalarValue, ScalarError> {
    let t = text.trim();
    let fail = |why: String| ScalarError { kind, why };
    let boolean = match t {
        "true" | "True" => Some(true),
        "false" | "False" => Some(false),
        _ => None,
    };
    match kind {
        ArgKind::Bool => match (boolean, t) {
            (Some(b), _) => Ok(ScalarValue::Int(i64::from(b))),
            (None, "1") => Ok(ScalarValue::Int(1)),
            (None, "0") => Ok(ScalarValue::Int(0)),
            (None, _) => Err(fail("not true or false".into())),
        },
        ArgKind::Int => match scalar_number(t).map_err(fail)? {
            Number::Integer(v) => int64(v).map(ScalarValue::Int).map_err(fail),
            Number::Big(_) => Err(fail("out of the range of an int64".into())),
            Number::Fraction(_) => Err(fail("not an integer".into())),
        },
        ArgKind::Float => match scalar_number(t).map_err(fail)? {
            // The nearest double, as a decimal fraction's is.
            Number::Integer(v) => Ok(ScalarValue::Double(v as f64)),
            Number::Big(v) if v.is_infinite() => Err(fail(out_of_double(v))),
            Number::Big(v) | Number::Fraction(v) => Ok(ScalarValue::Double(v)),
        },
        ArgKind::Scalar | ArgKind::Tensor => {
            if let Some(b) = boolean {
                return Ok(ScalarValue::Int(i64::from(b)));
            }
            let too_large = || {
                fail(
                    "out of the range of an int64 (a larger number is a float: write it \
                      with an exponent, 1e30)"
                        .into(),
                )
            };
            match scalar_number(t).map_err(fail)? {
                Number::Integer(v) => int64(v).map(ScalarValue::Int).map_err(|_| too_large()),
                Number::Big(_) => Err(too_large()),
                Number::Fraction(v) => Ok(ScalarValue::Double(v)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_follow_the_grammar_of_their_type() {
        use ScalarValue::{Double, Int};
        let ok = |kind, text: &str| parse_scalar(kind, text).unwrap();
        assert_eq!(ok(ArgKind::Int, "-3"), Int(-3));
        assert_eq!(ok(ArgKind::Int, "0x10"), Int(16));
        assert_eq!(ok(ArgKind::Int, "-0x10"), Int(-16));
        assert_eq!(ok(ArgKind::Int, " +7 "), Int(7));
        assert_eq!(ok(ArgKind::Int, "9223372036854775807"), Int(i64::MAX));
        assert_eq!(ok(ArgKind::Int, "-0x8000000000000000"), Int(i64::MIN));
        assert_eq!(ok(ArgKind::Float, "0.5"), Double(0.5));
        assert_eq!(ok(ArgKind::Float, "2"), Double(2.0));
        assert_eq!(ok(ArgKind::Float, "0x10"), Double(16.0));
        assert_eq!(ok(ArgKind::Float, "-2."), Double(-2.0));
        assert_eq!(ok(ArgKind::Float, ".5e1"), Double(5.0));
        assert_eq!(ok(ArgKind::Float, "1e308"), Double(1e308));
        assert_eq!(ok(ArgKind::Float, "-inf"), Double(f64::NEG_INFINITY));
        assert_eq!(ok(ArgKind::Float, "Infinity"), Double(f64::INFINITY));
        assert!(matches!(ok(ArgKind::Float, "nan"), Double(v) if v.is_nan()));
        assert_eq!(ok(ArgKind::Float, "0.0"), Double(0.0));
        assert_eq!(
            ok(ArgKind::Float, "0e-999"),
            Double(0.0),
            "zero is no underflow"
        );
        assert_eq!(ok(ArgKind::Float, "5e-324"), Double(f64::from_bits(1)));
        assert_eq!(ok(ArgKind::Bool, "true"), Int(1));
        assert_eq!(ok(ArgKind::Bool, "False"), Int(0));
        assert_eq!(ok(ArgKind::Bool, "1"), Int(1));
        assert_eq!(ok(ArgKind::Scalar, "2"), Int(2));
        assert_eq!(ok(ArgKind::Scalar, "0x10"), Int(16));
        assert_eq!(ok(ArgKind::Scalar, "2.0"), Double(2.0));
        assert_eq!(ok(ArgKind::Scalar, "1e3"), Double(1000.0));
        assert_eq!(ok(ArgKind::Scalar, "true"), Int(1));
        assert_eq!(ok(ArgKind::Scalar, "false"), Int(0));
    }

    #[test]
    fn a_refused_scalar_says_why_and_lists_the_forms_of_its_type() {
        let why = |kind, text: &str| parse_scalar(kind, text).unwrap_err().why;
        assert_eq!(
            why(ArgKind::Float, "1e400"),
            "out of the range of a double (its magnitude is at most 1.7976931348623157e308), \
             it is not read as inf"
        );
        assert_eq!(
            why(ArgKind::Float, "1e-400"),
            "too small for a double (the least non-zero magnitude is 5e-324), it is not read as 0"
        );
        assert_eq!(why(ArgKind::Int, "1.5"), "not an integer");
        assert_eq!(why(ArgKind::Int, "1e3"), "not an integer");
        assert_eq!(why(ArgKind::Int, "true"), "not a number");
        assert_eq!(
            why(ArgKind::Int, "9223372036854775808"),
            "out of the range of an int64"
        );
        assert_eq!(
            why(ArgKind::Int, "0xffffffffffffffff"),
            "out of the range of an int64"
        );
        assert_eq!(
            why(ArgKind::Int, &"9".repeat(100)),
            "out of the range of an int64"
        );
        for big in ["100000000000000000000", &"9".repeat(100)] {
            assert_eq!(
                why(ArgKind::Scalar, big),
                "out of the range of an int64 (a larger number is a float: write it with an \
                 exponent, 1e30)"
            );
        }
        assert_eq!(
            parse_scalar(ArgKind::Float, &"9".repeat(100)).unwrap(),
            ScalarValue::Double(1e100)
        );
        assert!(why(ArgKind::Float, &"9".repeat(400)).starts_with("out of the range of a double"));
        for bad in [
            "", "0x", "1.2.3", "1e", "e5", "--1", "-nan", "1_000", "0b11", "two",
        ] {
            assert_eq!(why(ArgKind::Scalar, bad), "not a number", "{bad:?}");
        }
        assert_eq!(why(ArgKind::Bool, "yes"), "not true or false");
        assert_eq!(
            parse_scalar(ArgKind::Bool, "2").unwrap_err().to_string(),
            "not true or false: a bool is true or false (also True, False, 1, 0)"
        );
        assert_eq!(
            parse_scalar(ArgKind::Int, "x").unwrap_err().to_string(),
            "not a number: an int is an integer, decimal or 0x hex with an optional sign (-3, \
             0x10, -0x10), from -9223372036854775808 to 9223372036854775807"
        );
    }
}
