//! `--shard K/N`: which part of a job one of N parallel machines (a CI matrix) runs. Shard K
//! (1-based) takes the items whose 0-based position p has p mod N = K - 1 (the traces of a CI
//! manifest, the draws `verify` checks), so the N shards partition the job and each gets
//! every N-th item (neighbours, often alike in cost, spread out).

use std::fmt;
use std::str::FromStr;

/// Shard K of N (1 <= K <= N).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based shard number.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// Whether the trace at 0-based manifest `position` belongs to this shard.
    pub fn contains(&self, position: usize) -> bool {
        self.count > 0 && self.index.checked_sub(1) == Some(position % self.count)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("{s}: expected K/N, e.g. 1/4"))?;
        let index: usize = k.trim().parse().map_err(|e| format!("{s}: K: {e}"))?;
        let count: usize = n.trim().parse().map_err(|e| format!("{s}: N: {e}"))?;
        if count == 0 || index == 0 || index > count {
            return Err(format!("{s}: need 1 <= K <= N"));
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_refuses() {
        assert_eq!("2/3".parse(), Ok(Shard { index: 2, count: 3 }));
        assert_eq!("1/1".parse::<Shard>().unwrap().to_string(), "1/1");
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "1/-2", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn shards_partition_the_traces() {
        for count in 1..=5 {
            let shards: Vec<Shard> = (1..=count).map(|index| Shard { index, count }).collect();
            for position in 0..23 {
                let owners = shards.iter().filter(|s| s.contains(position)).count();
                assert_eq!(owners, 1, "position {position} with {count} shards");
            }
        }
        let s = Shard { index: 2, count: 3 };
        let taken: Vec<usize> = (0..10).filter(|&p| s.contains(p)).collect();
        assert_eq!(taken, [1, 4, 7]);
    }
}
