//! Raw program files (`raw/<hash>.vp`, `raw/<hash>.fp`, `rpcs3-shader-cache.md` §2.1, §2.2)
//! turned into canonical microcode.

use super::super::SourceProblem;
use crate::container::Stage;

/// Canonical big-endian vertex words from a `.vp` file, whose words are stored in host
/// (little-endian) order (§2.1). `Err` when the size is not a whole number of 16-byte
/// instructions.
pub(crate) fn vertex_words(file: &[u8]) -> Result<Vec<u8>, String> {
    if file.is_empty() || file.len() % 16 != 0 {
        return Err(format!(
            "truncated vertex program: {} bytes is not a non-zero multiple of 16",
            file.len()
        ));
    }
    Ok(file
        .chunks_exact(4)
        .flat_map(|w| [w[3], w[2], w[1], w[0]])
        .collect())
}

/// The stage a raw file's extension names.
pub(crate) fn stage_of(extension: &str) -> Option<Stage> {
    match extension {
        "vp" => Some(Stage::Vertex),
        "fp" => Some(Stage::Fragment),
        _ => None,
    }
}

/// The hash a raw file's name stands for: `%llX`, upper-case hex without padding (§1.2).
pub(crate) fn name_value(stem: &str) -> Option<u64> {
    (!stem.is_empty() && stem.len() <= 16)
        .then(|| u64::from_str_radix(stem, 16).ok())
        .flatten()
}

pub(crate) fn problem(
    path: &std::path::Path,
    offset: Option<u64>,
    reason: String,
) -> SourceProblem {
    SourceProblem {
        path: path.to_path_buf(),
        offset,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertex_words_are_byte_swapped_and_size_checked() {
        let file: Vec<u8> = (0u8..16).collect();
        let be = vertex_words(&file).unwrap();
        assert_eq!(&be[..4], &[3, 2, 1, 0]);
        assert!(vertex_words(&file[..12]).is_err());
        assert_eq!(name_value("DBB822C008101A2"), Some(0x0DBB_822C_0081_01A2));
        assert_eq!(name_value("xyz"), None);
    }
}
