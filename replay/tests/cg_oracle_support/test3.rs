//! `rsx_fp_static_test3.cg` (a Shadertoy ray-marcher, "Data Transfer" by srtuss) in f32,
//! function by function; `iGlobalTime` = 2.0 as in the source.

use super::*;

const I_GLOBAL_TIME: f32 = 2.0;
const WIDTH: f32 = 720.0;
const HEIGHT: f32 = 480.0;

/// Cg `rotate(float2 k, float t)`.
fn rotate(k: V2, t: f32) -> V2 {
    v2(t.cos() * k.x - t.sin() * k.y, t.sin() * k.x + t.cos() * k.y)
}

/// Cg `hexagon(float3 p, float2 h)`.
fn hexagon(p: V3, h: V2) -> f32 {
    let q = p.map(f32::abs);
    (q.z - h.y).max((q.x + q.y * 0.57735).max(q.y * 1.1547) - h.x)
}

/// Cg `scene(float3 pi)`.
fn scene(pi: V3) -> f32 {
    let slices = (I_GLOBAL_TIME * 0.8).cos() * 0.3 + 0.4;
    let a = (pi.z * 0.3).sin() * 2.0;
    let r = rotate(pi.xy(), a);
    let mut pr = v3(r.x, r.y, pi.z);
    let id = pr.map(f32::floor);
    pr.z += (id.x * 10.0 + id.y * 20.0).sin() * I_GLOBAL_TIME * 2.0;
    let mut p = pr.map(frac);
    p -= 0.5;
    hexagon(p, v2(0.3, slices))
}

/// Cg `norm(float3 p)`.
fn norm(p: V3) -> V3 {
    let d = 0.01;
    let (dx, dy, dz) = (v3(d, 0.0, 0.0), v3(0.0, d, 0.0), v3(0.0, 0.0, d));
    let n = v3(
        scene(p - dx) - scene(p + dx),
        scene(p - dy) - scene(p + dy),
        scene(p - dz) - scene(p + dz),
    );
    normalize(n)
}

/// Cg `main`: the colour of the pixel whose `TEX0` is (`tex_x`, `tex_y`).
pub fn main(tex_x: f32, tex_y: f32) -> [f32; 4] {
    let frag = v2(tex_x * WIDTH, tex_y * HEIGHT);
    let pos = frag / v2(WIDTH, HEIGHT);
    let p = -1.0 + 2.0 * pos;
    let mut dir = normalize(v3(p.x * 1.77, p.y, 1.0));
    // Camera
    let zx = rotate(v2(dir.z, dir.x), (I_GLOBAL_TIME * 0.5).sin() * 0.4);
    (dir.z, dir.x) = (zx.x, zx.y);
    let xy = rotate(v2(dir.x, dir.y), I_GLOBAL_TIME * 0.2);
    (dir.x, dir.y) = (xy.x, xy.y);
    let ray = v3(0.0, 0.0, 0.0 - I_GLOBAL_TIME * 0.9);
    // Raymarching
    let mut t = 0.0;
    for _ in 0..90 {
        let k = scene(ray + dir * t);
        t += k * 0.75;
    }
    let hit = ray + dir * t;
    // Fog
    let fog = clamp((-distance3(ray, hit) * 0.3).exp(), 0.0, 1.0);
    if fog < 0.05 {
        return [0.0, 0.0, 0.0, 1.0];
    }
    let sun = normalize(v3(0.1, 1.0, 0.2));
    let n = norm(hit);
    let reflected = reflect(normalize(hit - ray), n);
    let diff = dot3(n, sun);
    let spec = pow(dot3(reflected, sun).max(0.0), 32.0);
    let mut col = lerp3(v3(0.0, 0.7, 0.9), v3(0.0, 0.1, 0.2), diff);
    col = fog * (col + spec);
    col *= 0.1 + 0.8 * pow(16.0 * pos.x * pos.y * (1.0 - pos.x) * (1.0 - pos.y), 0.1);
    [col.x, col.y, col.z, 1.0]
}
