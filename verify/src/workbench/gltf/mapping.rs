//! Which glTF attribute each vertex input attribute becomes: explicit mappings
//! (`--attr NAME=N`) and the documented guess for the rest.
//!
//! **The guess** is the conventional binding of the NV vertex program inputs that Cg's
//! `vp40` / `sce_vp_rsx` profiles follow (the attribute aliasing table of
//! `ARB_vertex_program` / `NV_vertex_program`): attribute 0 POSITION, 2 NORMAL, 3 COLOR0
//! (diffuse), 4 COLOR1 (specular), 8..15 TEXCOORD0..7 (1 blend weight, 5 fog coordinate, 6 point
//! size and 7 blend indices are not guessed). A game's shaders may bind anything anywhere;
//! every guessed mapping is marked as a guess in the file.

use serde::Serialize;

/// A glTF vertex attribute the export writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// `POSITION` (object space only: in clip space the position is the program's output).
    Position,
    /// `NORMAL`.
    Normal,
    /// `COLOR_n`.
    Color(u8),
    /// `TEXCOORD_n`.
    TexCoord(u8),
}

impl Target {
    /// The glTF attribute name.
    pub fn gltf_name(self) -> String {
        match self {
            Target::Position => "POSITION".into(),
            Target::Normal => "NORMAL".into(),
            Target::Color(n) => format!("COLOR_{n}"),
            Target::TexCoord(n) => format!("TEXCOORD_{n}"),
        }
    }

    /// Parse a mapping name: `position`, `normal`, `color`/`colour` (`COLOR_0`), `color1`,
    /// `texcoord` (`TEXCOORD_0`), `texcoord0`..`texcoord7`, or the glTF names themselves
    /// (`COLOR_0`, `TEXCOORD_3`), in any case.
    pub fn parse(name: &str) -> Option<Target> {
        let lower = name.to_ascii_lowercase().replace('_', "");
        let numbered = |prefix: &str, max: u8| -> Option<u8> {
            let rest = lower.strip_prefix(prefix)?;
            if rest.is_empty() {
                return Some(0);
            }
            rest.parse::<u8>().ok().filter(|n| *n <= max)
        };
        match lower.as_str() {
            "position" => Some(Target::Position),
            "normal" => Some(Target::Normal),
            _ => numbered("colour", 1)
                .or_else(|| numbered("color", 1))
                .map(Target::Color)
                .or_else(|| numbered("texcoord", 7).map(Target::TexCoord)),
        }
    }

    /// Components written: 3 for position and normal, 4 for colours, 2 for coordinates.
    pub fn components(self) -> usize {
        match self {
            Target::Position | Target::Normal => 3,
            Target::Color(_) => 4,
            Target::TexCoord(_) => 2,
        }
    }
}

/// The guessed target of input attribute `attribute` (module docs), if any.
pub fn guess(attribute: u8) -> Option<Target> {
    match attribute {
        0 => Some(Target::Position),
        2 => Some(Target::Normal),
        3 => Some(Target::Color(0)),
        4 => Some(Target::Color(1)),
        8..=15 => Some(Target::TexCoord(attribute - 8)),
        _ => None,
    }
}

/// One `--attr NAME=N` as given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mapping {
    /// The name as typed.
    pub name: String,
    /// What it names, when the name is known.
    pub target: Option<Target>,
    /// The input attribute.
    pub attribute: u8,
}

/// Parse `NAME=N` (N 0..=15). An unknown name still parses (its `target` is `None`: the
/// export warns and goes on); a malformed one is an error.
pub fn parse_mapping(text: &str) -> Result<Mapping, String> {
    let (name, number) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?}: expected NAME=N (position=0, normal=2, texcoord0=8)"))?;
    let attribute: u8 = number
        .trim()
        .parse()
        .map_err(|e| format!("{text:?}: attribute number: {e}"))?;
    if attribute > 15 {
        return Err(format!(
            "{text:?}: attribute {attribute} does not exist (vertex inputs are 0..=15)"
        ));
    }
    Ok(Mapping {
        name: name.trim().to_string(),
        target: Target::parse(name.trim()),
        attribute,
    })
}

/// How one glTF attribute of a mesh was chosen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Chosen {
    /// glTF attribute name.
    pub gltf: String,
    /// Input attribute number, or `null` for the clip-space position (the program's HPOS).
    pub attribute: Option<u8>,
    /// `HPOS` for the clip-space position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<&'static str>,
    /// Chosen by the guess rather than by a mapping.
    pub guess: bool,
}

/// The targets of a draw's present input attributes (`present`: the attributes the capture
/// gives values for): explicit mappings first, then the guess for every target and attribute
/// no mapping took. The position is left out in clip space. Returns the `(target, attribute,
/// guessed)` list and a warning per mapping that names an attribute the draw lacks.
pub fn resolve(
    mappings: &[Mapping],
    present: &[u8],
    clip_space: bool,
) -> (Vec<(Target, u8, bool)>, Vec<String>) {
    let mut out: Vec<(Target, u8, bool)> = Vec::new();
    let mut warnings = Vec::new();
    for m in mappings {
        let Some(target) = m.target else { continue };
        if clip_space && target == Target::Position {
            continue; // the program's output is the position
        }
        if !present.contains(&m.attribute) {
            warnings.push(format!(
                "{}={}: attribute {} is not an input of this draw (or has no value in the capture); {} left out",
                m.name,
                m.attribute,
                m.attribute,
                target.gltf_name()
            ));
            continue;
        }
        out.retain(|(t, _, _)| *t != target);
        out.push((target, m.attribute, false));
    }
    for &attribute in present {
        let Some(target) = guess(attribute) else {
            continue;
        };
        let taken = out.iter().any(|(t, a, _)| *t == target || *a == attribute);
        if taken || (clip_space && target == Target::Position) {
            continue;
        }
        out.push((target, attribute, true));
    }
    out.sort();
    (out, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_every_spelling() {
        assert_eq!(Target::parse("position"), Some(Target::Position));
        assert_eq!(Target::parse("NORMAL"), Some(Target::Normal));
        assert_eq!(Target::parse("colour"), Some(Target::Color(0)));
        assert_eq!(Target::parse("COLOR_1"), Some(Target::Color(1)));
        assert_eq!(Target::parse("texcoord"), Some(Target::TexCoord(0)));
        assert_eq!(Target::parse("TEXCOORD_7"), Some(Target::TexCoord(7)));
        assert_eq!(Target::parse("texcoord8"), None);
        assert_eq!(Target::parse("tangent"), None);
    }

    #[test]
    fn mappings_parse_and_refuse() {
        let m = parse_mapping("normal=3").unwrap();
        assert_eq!((m.target, m.attribute), (Some(Target::Normal), 3));
        assert_eq!(parse_mapping("bogus=1").unwrap().target, None);
        assert!(parse_mapping("normal").is_err());
        assert!(parse_mapping("normal=16").is_err());
        assert!(parse_mapping("normal=x").is_err());
    }

    #[test]
    fn explicit_mappings_win_and_the_rest_is_guessed() {
        let maps = vec![parse_mapping("normal=3").unwrap()];
        let (chosen, warnings) = resolve(&maps, &[0, 3, 8], false);
        assert!(warnings.is_empty());
        assert_eq!(
            chosen,
            vec![
                (Target::Position, 0, true),
                (Target::Normal, 3, false),
                (Target::TexCoord(0), 8, true),
            ]
        );
        // Clip space: no position from the inputs; a mapping to a missing attribute warns.
        let maps = vec![parse_mapping("texcoord=9").unwrap()];
        let (chosen, warnings) = resolve(&maps, &[0, 3], true);
        assert_eq!(chosen, vec![(Target::Color(0), 3, true)]);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("attribute 9"), "{warnings:?}");
    }
}
