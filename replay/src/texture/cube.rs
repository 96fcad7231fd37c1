//! Cube map face selection: the major axis of the direction picks the face, and the other two
//! components become the face coordinates (OpenGL 4.6 table 8.19; RPCS3 samples cube maps
//! through GL/Vulkan cube views, faces in the order +X, -X, +Y, -Y, +Z, -Z).

/// Face index and (s, t) in 0..1 for direction `(rx, ry, rz)`, with the face-space derivative
/// scale `0.5 / |ma|` (the change of `ma` across the quad is ignored). Ties pick X over Y over
/// Z. `None` for a zero (or NaN) direction.
pub fn select_face(rx: f32, ry: f32, rz: f32) -> Option<(u32, f32, f32, CubeAxes)> {
    let (ax, ay, az) = (rx.abs(), ry.abs(), rz.abs());
    let (face, sc, tc, ma, axes) = if ax >= ay && ax >= az {
        if rx >= 0.0 {
            (
                0,
                -rz,
                -ry,
                ax,
                CubeAxes {
                    s: (2, -1.0),
                    t: (1, -1.0),
                    scale: 0.0,
                },
            )
        } else {
            (
                1,
                rz,
                -ry,
                ax,
                CubeAxes {
                    s: (2, 1.0),
                    t: (1, -1.0),
                    scale: 0.0,
                },
            )
        }
    } else if ay >= az {
        if ry >= 0.0 {
            (
                2,
                rx,
                rz,
                ay,
                CubeAxes {
                    s: (0, 1.0),
                    t: (2, 1.0),
                    scale: 0.0,
                },
            )
        } else {
            (
                3,
                rx,
                -rz,
                ay,
                CubeAxes {
                    s: (0, 1.0),
                    t: (2, -1.0),
                    scale: 0.0,
                },
            )
        }
    } else if rz >= 0.0 {
        (
            4,
            rx,
            -ry,
            az,
            CubeAxes {
                s: (0, 1.0),
                t: (1, -1.0),
                scale: 0.0,
            },
        )
    } else {
        (
            5,
            -rx,
            -ry,
            az,
            CubeAxes {
                s: (0, -1.0),
                t: (1, -1.0),
                scale: 0.0,
            },
        )
    };
    if ma.is_nan() || ma <= 0.0 {
        return None;
    }
    let s = 0.5 * (sc / ma + 1.0);
    let t = 0.5 * (tc / ma + 1.0);
    Some((
        face,
        s,
        t,
        CubeAxes {
            scale: 0.5 / ma,
            ..axes
        },
    ))
}

/// Which direction component (and sign) feeds each face coordinate, for derivatives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubeAxes {
    /// (component index, sign) of s.
    pub s: (usize, f32),
    /// (component index, sign) of t.
    pub t: (usize, f32),
    /// `0.5 / |ma|`.
    pub scale: f32,
}

impl Default for CubeAxes {
    fn default() -> CubeAxes {
        CubeAxes {
            s: (0, 1.0),
            t: (1, 1.0),
            scale: 0.5,
        }
    }
}

impl CubeAxes {
    /// Project a direction derivative onto the face's (s, t).
    pub fn project(&self, d: [f32; 4]) -> [f32; 3] {
        let pick = |(i, sign): (usize, f32)| d.get(i).copied().unwrap_or(0.0) * sign * self.scale;
        [pick(self.s), pick(self.t), 0.0]
    }
}
