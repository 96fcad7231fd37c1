//! The Tiny3D programs of the corpus: the hand-assembled fragment programs of
//! `tiny3d/nv_shaders_fp.json` (`programs[]` with `name`, `size_words` and `rows[]` of
//! `words`, hex strings, and an optional mnemonic `comment`) and the vertex program container
//! `tiny3d/vshader_text_normal.rvp`.

use serde_json::Value;

use crate::corpus::Corpus;

/// The corpus file of Tiny3D's fragment programs.
pub const FRAGMENT_PROGRAMS: &str = "tiny3d/nv_shaders_fp.json";
/// The corpus file of Tiny3D's vertex program (a `VP` container).
pub const VERTEX_PROGRAM: &str = "tiny3d/vshader_text_normal.rvp";

/// One row of a program: the words of one slot (instruction or constant) and its comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub words: Vec<u32>,
    /// Tiny3D's comment: a mnemonic (`"MOV  o[COLH], f[COL0];"`) or a constant (`"{0.5 ...}"`).
    pub comment: Option<String>,
}

/// One fragment program of `nv_shaders_fp.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FragmentProgram {
    pub name: String,
    /// The declared length in words, when given.
    pub size_words: Option<u64>,
    pub rows: Vec<Row>,
}

impl FragmentProgram {
    /// Every word of the program, row after row.
    pub fn words(&self) -> Vec<u32> {
        self.rows
            .iter()
            .flat_map(|r| r.words.iter().copied())
            .collect()
    }
}

/// Parses `nv_shaders_fp.json`; the error names the program and what is wrong.
pub fn parse_fragment_programs(text: &str) -> Result<Vec<FragmentProgram>, String> {
    let json: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let programs = json["programs"].as_array().ok_or("no programs array")?;
    programs.iter().map(parse_program).collect()
}

fn parse_program(p: &Value) -> Result<FragmentProgram, String> {
    let name = p["name"].as_str().ok_or("a program without a name")?;
    let rows = p["rows"]
        .as_array()
        .ok_or_else(|| format!("{name}: no rows array"))?
        .iter()
        .map(|r| parse_row(r).map_err(|e| format!("{name}: {e}")))
        .collect::<Result<_, _>>()?;
    Ok(FragmentProgram {
        name: name.to_string(),
        size_words: p["size_words"].as_u64(),
        rows,
    })
}

fn parse_row(r: &Value) -> Result<Row, String> {
    let words = r["words"]
        .as_array()
        .ok_or("a row without words")?
        .iter()
        .map(|w| {
            let s = w
                .as_str()
                .ok_or_else(|| format!("word {w} is not a string"))?;
            u32::from_str_radix(s.trim_start_matches("0x"), 16)
                .map_err(|e| format!("word {s:?}: {e}"))
        })
        .collect::<Result<_, _>>()?;
    Ok(Row {
        words,
        comment: r["comment"].as_str().map(str::to_string),
    })
}

impl Corpus {
    /// The Tiny3D fragment programs; panics when the file is malformed.
    pub fn tiny3d_fragment_programs(&self) -> Vec<FragmentProgram> {
        parse_fragment_programs(&self.read_to_string(FRAGMENT_PROGRAMS))
            .unwrap_or_else(|e| panic!("{FRAGMENT_PROGRAMS}: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_parse_with_rows_words_and_comments() {
        let text = r#"{"programs": [
            {"name": "a", "size_words": 8, "rows": [
                {"comment": "MOV  o[COLH], f[COL0];", "words": ["0x01003e81", "0x1c9dc801"]},
                {"words": ["0x00000000", "ffffffff"]}]},
            {"name": "b", "rows": []}]}"#;
        let p = parse_fragment_programs(text).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].name, "a");
        assert_eq!(p[0].size_words, Some(8));
        assert_eq!(
            p[0].rows[0].comment.as_deref(),
            Some("MOV  o[COLH], f[COL0];")
        );
        assert_eq!(p[0].rows[1].comment, None);
        assert_eq!(p[0].words(), [0x0100_3e81, 0x1c9d_c801, 0, 0xFFFF_FFFF]);
        assert_eq!((p[1].size_words, p[1].words()), (None, vec![]));
    }

    #[test]
    fn malformed_programs_name_the_problem() {
        let bad_word = r#"{"programs": [{"name": "a", "rows": [{"words": ["0xZZ"]}]}]}"#;
        assert!(parse_fragment_programs(bad_word)
            .unwrap_err()
            .starts_with("a: word \"0xZZ\""));
        assert_eq!(
            parse_fragment_programs("{}").unwrap_err(),
            "no programs array"
        );
        let no_rows = r#"{"programs": [{"name": "a"}]}"#;
        assert_eq!(
            parse_fragment_programs(no_rows).unwrap_err(),
            "a: no rows array"
        );
    }
}
