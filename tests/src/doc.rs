//! Reading the repository's markdown tables, for tests that check a document against the code
//! (PLATFORM.md, the SDK headers' documentation).

/// The cells of a table row `| a | b | … |`, trimmed.
pub fn cells(line: &str) -> Vec<String> {
    line.trim_matches('|')
        .split('|')
        .map(|c| c.trim().to_string())
        .collect()
}

/// Every table row of `text` (lines starting `| `, rules left out), as cells.
pub fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("|---"))
        .map(cells)
        .collect()
}

/// The body rows of the first table after the first line starting with `heading`.
pub fn table_after(text: &str, heading: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip_while(|l| !l.starts_with(heading))
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // header and rule
        .map(cells)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_split_into_trimmed_cells() {
        let t = "intro\n| a | b |\n|---|---|\n| 1 | x y |\n\n| c |\n";
        assert_eq!(table_after(t, "intro"), [["1", "x y"]]);
        assert_eq!(rows(t), [vec!["a", "b"], vec!["1", "x y"], vec!["c"]]);
    }
}
