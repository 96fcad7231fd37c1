//! On-demand helper functions: a module carries only the prelude helpers its code calls.
//!
//! A helper library is a list of `(name, WGSL text)` pairs, each text declaring the function
//! `name` (with its comment). [`append_used`] finds the helpers the emitted code calls, closes
//! the set over the calls the helpers themselves make, and appends their texts in library
//! order. naga parses and validates every function of a module, used or not, so leaving the
//! unused ones out is what keeps small programs cheap to validate.

/// Whether `text` calls `name`: `name(` not preceded by an identifier character.
pub(crate) fn calls(text: &str, name: &str) -> bool {
    let mut rest = text;
    let mut before: Option<char> = None;
    while let Some(at) = rest.find(name) {
        let prev = rest[..at].chars().next_back().or(before);
        let after = &rest[at + name.len()..];
        let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        if after.starts_with('(') && !prev.is_some_and(ident) {
            return true;
        }
        before = name.chars().next_back();
        rest = after;
    }
    false
}

/// Appends to `out` every helper of `library` that `code` calls, directly or through other
/// helpers, in library order.
pub(crate) fn append_used<S: AsRef<str>>(out: &mut String, library: &[(&str, S)], code: &[&str]) {
    let mut used = vec![false; library.len()];
    let mut work: Vec<usize> = library
        .iter()
        .enumerate()
        .filter(|(_, (name, _))| code.iter().any(|c| calls(c, name)))
        .map(|(k, _)| k)
        .collect();
    while let Some(k) = work.pop() {
        let Some(flag) = used.get_mut(k) else {
            continue;
        };
        if *flag {
            continue;
        }
        *flag = true;
        let Some((own, text)) = library.get(k) else {
            continue;
        };
        for (j, (name, _)) in library.iter().enumerate() {
            if name != own && !used.get(j).copied().unwrap_or(true) && calls(text.as_ref(), name) {
                work.push(j);
            }
        }
    }
    for ((_, text), _) in library.iter().zip(&used).filter(|(_, u)| **u) {
        out.push_str(text.as_ref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_needs_the_whole_name_and_a_parenthesis() {
        assert!(calls("let x = rsx_isnan(v);", "rsx_isnan"));
        assert!(calls("rsx_isnan(v)", "rsx_isnan"));
        // Longer names that start or end with it, and mentions without a call.
        assert!(!calls("let x = rsx_isnan1(v);", "rsx_isnan"));
        assert!(!calls("let x = my_rsx_isnan(v);", "rsx_isnan"));
        assert!(!calls("// rsx_isnan is a helper", "rsx_isnan"));
        // A rejected occurrence does not hide a later call.
        assert!(calls("rsx_isnan1(a) | rsx_isnan(b)", "rsx_isnan"));
        assert!(!calls("xrsx_isnan(rsx_isnan1(b))", "rsx_isnan"));
    }

    #[test]
    fn helpers_are_closed_over_their_calls_and_kept_in_library_order() {
        let lib = [
            ("h_a", "fn h_a() {}\n"),
            ("h_b", "fn h_b() { h_a(); }\n"),
            ("h_c", "fn h_c() { h_b(); }\n"),
            ("h_d", "fn h_d() {}\n"),
        ];
        let mut out = String::new();
        append_used(&mut out, &lib, &["fn main() { h_c(); }"]);
        assert_eq!(
            out,
            "fn h_a() {}\nfn h_b() { h_a(); }\nfn h_c() { h_b(); }\n"
        );
        let mut none = String::new();
        append_used(&mut none, &lib, &["fn main() {}", "// h_d"]);
        assert_eq!(none, "");
        let mut two = String::new();
        append_used(&mut two, &lib, &["h_d()", "h_a()"]);
        assert_eq!(two, "fn h_a() {}\nfn h_d() {}\n");
    }
}
