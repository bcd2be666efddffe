//! The 4-d robot-pushing task of Wang & Jegelka (2017, "Max-value entropy search for efficient
//! Bayesian optimization", §5.3; thesis §4.7.4): a rectangular hand starts at `(rx, ry)` with
//! angle `θ`, moves towards the origin at speed 10 for `steps · 10` time steps of 1/100 s, then
//! stops; a round object starts at the origin; `f` is the distance from where the object comes to
//! rest (after 100 more steps) to a goal in `[−5, 5]²`. Domain `(rx, ry, steps, θ) ∈ [−5, 5]² ×
//! [1, 30] × [0, 2π]`.
//!
//! The original simulates with Box2D 2.3. This is our own rigid-body model of the same scene with
//! Box2D's scheme (sequential impulses, 10 velocity and 10 position iterations, warm starting,
//! Baumgarte position correction): hand box 0.6 × 2 (density 0.1, friction 0.1), object disc of
//! radius 1 (density 0.05, friction 0.01), both held to the table by friction joints (maximum
//! force 2 and 5, maximum torque 2), the hand driven by the force `m · 30 · (v* − v)` and the torque
//! `m · 30 · (0 − ω)` of the original. Differences from Box2D: no sleeping (bodies at rest stay
//! put either way) and no broad phase (one contact pair). The original adds N(0, 0.1²) noise to
//! the hand's velocity; this model is deterministic.

use gradfree_core::{Bounds, Objective};

/// Box2D's constants (b2Settings.h, version 2.3).
const LINEAR_SLOP: f64 = 0.005;
const POLYGON_RADIUS: f64 = 2.0 * LINEAR_SLOP;
const BAUMGARTE: f64 = 0.2;
const MAX_CORRECTION: f64 = 0.2;
const MAX_TRANSLATION: f64 = 2.0;
const MAX_ROTATION: f64 = 0.5 * std::f64::consts::PI;
const DT: f64 = 0.01;
const VELOCITY_ITERATIONS: usize = 10;
const POSITION_ITERATIONS: usize = 10;

/// Scene parameters of the original (push_world.py).
const HAND_HALF: [f64; 2] = [0.3, 1.0];
const HAND_DENSITY: f64 = 0.1;
const HAND_FRICTION: f64 = 0.1;
const HAND_JOINT: (f64, f64) = (2.0, 2.0);
const OBJECT_RADIUS: f64 = 1.0;
const OBJECT_DENSITY: f64 = 0.05;
const OBJECT_FRICTION: f64 = 0.01;
const OBJECT_JOINT: (f64, f64) = (5.0, 2.0);
const FORCE_UNIT: f64 = 30.0;
const SPEED: f64 = 10.0;

#[derive(Clone, Copy, Debug)]
struct Body {
    c: [f64; 2],
    a: f64,
    v: [f64; 2],
    w: f64,
    inv_m: f64,
    inv_i: f64,
    /// Friction-joint impulses (linear, angular), warm-started across steps.
    jp: [f64; 2],
    ja: f64,
    joint: (f64, f64),
}

fn cross(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

fn rot(a: f64, p: [f64; 2]) -> [f64; 2] {
    let (s, c) = a.sin_cos();
    [c * p[0] - s * p[1], s * p[0] + c * p[1]]
}

impl Body {
    /// A body at rest at `c` with angle `a`, mass `m`, moment of inertia `i` and friction joint
    /// `(max force, max torque)`.
    fn at_rest(c: [f64; 2], a: f64, m: f64, i: f64, joint: (f64, f64)) -> Self {
        Body { c, a, v: [0.0; 2], w: 0.0, inv_m: 1.0 / m, inv_i: 1.0 / i, jp: [0.0; 2], ja: 0.0, joint }
    }

    /// Velocity of the point at offset `r` from the centre.
    fn vel_at(&self, r: [f64; 2]) -> [f64; 2] {
        [self.v[0] - self.w * r[1], self.v[1] + self.w * r[0]]
    }

    fn apply(&mut self, sign: f64, r: [f64; 2], p: [f64; 2]) {
        self.v[0] += sign * self.inv_m * p[0];
        self.v[1] += sign * self.inv_m * p[1];
        self.w += sign * self.inv_i * cross(r, p);
    }

    /// One velocity iteration of the friction joint to the static table (anchor at the centre,
    /// b2FrictionJoint::SolveVelocityConstraints).
    fn solve_joint(&mut self) {
        let max_t = self.joint.1 * DT;
        let old = self.ja;
        self.ja = (old - self.w / self.inv_i).clamp(-max_t, max_t);
        self.w += self.inv_i * (self.ja - old);
        let old = self.jp;
        let mut p = [old[0] - self.v[0] / self.inv_m, old[1] - self.v[1] / self.inv_m];
        let len = dot(p, p).sqrt();
        let max_f = self.joint.0 * DT;
        if len > max_f {
            p = [p[0] * max_f / len, p[1] * max_f / len];
        }
        self.jp = p;
        self.v[0] += self.inv_m * (p[0] - old[0]);
        self.v[1] += self.inv_m * (p[1] - old[1]);
    }
}

/// The contact manifold of the hand box (A) and the disc (B) in A's frame
/// (b2CollidePolygonAndCircle): local normal, local plane point.
fn collide(hand: &Body, obj: &Body) -> Option<([f64; 2], [f64; 2])> {
    let d = [obj.c[0] - hand.c[0], obj.c[1] - hand.c[1]];
    let c = rot(-hand.a, d);
    let radius = POLYGON_RADIUS + OBJECT_RADIUS;
    let [hx, hy] = HAND_HALF;
    // Counter-clockwise vertices and outward normals of the box.
    let verts = [[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]];
    let normals = [[0.0, -1.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]];
    let mut best = (0usize, f64::NEG_INFINITY);
    for i in 0..4 {
        let s = dot(normals[i], [c[0] - verts[i][0], c[1] - verts[i][1]]);
        if s > radius {
            return None;
        }
        if s > best.1 {
            best = (i, s);
        }
    }
    let (i, s) = best;
    let (v1, v2) = (verts[i], verts[(i + 1) % 4]);
    if s < f64::EPSILON {
        return Some((normals[i], [0.5 * (v1[0] + v2[0]), 0.5 * (v1[1] + v2[1])]));
    }
    let u1 = dot([c[0] - v1[0], c[1] - v1[1]], [v2[0] - v1[0], v2[1] - v1[1]]);
    let u2 = dot([c[0] - v2[0], c[1] - v2[1]], [v1[0] - v2[0], v1[1] - v2[1]]);
    let vertex = |v: [f64; 2]| {
        let e = [c[0] - v[0], c[1] - v[1]];
        let l2 = dot(e, e);
        (l2 <= radius * radius).then(|| {
            let l = l2.sqrt().max(f64::EPSILON);
            ([e[0] / l, e[1] / l], v)
        })
    };
    if u1 <= 0.0 {
        vertex(v1)
    } else if u2 <= 0.0 {
        vertex(v2)
    } else {
        let mid = [0.5 * (v1[0] + v2[0]), 0.5 * (v1[1] + v2[1])];
        (dot([c[0] - mid[0], c[1] - mid[1]], normals[i]) <= radius).then_some((normals[i], mid))
    }
}

/// Simulates one push; returns where the object comes to rest.
pub fn push(rx: f64, ry: f64, steps: f64, angle: f64) -> [f64; 2] {
    let hand_m = HAND_DENSITY * 4.0 * HAND_HALF[0] * HAND_HALF[1];
    let hand_i = hand_m * (HAND_HALF[0] * HAND_HALF[0] + HAND_HALF[1] * HAND_HALF[1]) / 3.0;
    let obj_m = OBJECT_DENSITY * std::f64::consts::PI * OBJECT_RADIUS * OBJECT_RADIUS;
    let obj_i = 0.5 * obj_m * OBJECT_RADIUS * OBJECT_RADIUS;
    let mut hand = Body::at_rest([rx, ry], angle, hand_m, hand_i, HAND_JOINT);
    let mut obj = Body::at_rest([0.0; 2], 0.0, obj_m, obj_i, OBJECT_JOINT);
    // As the original: a zero coordinate is replaced by 1e-21 before normalizing.
    let (sx, sy) = (if rx == 0.0 { 1e-21 } else { rx }, if ry == 0.0 { 1e-21 } else { ry });
    let norm = (sx * sx + sy * sy).sqrt();
    let target = [-sx / norm * SPEED, -sy / norm * SPEED];
    let drive = (steps * 10.0) as usize;
    let friction = (HAND_FRICTION * OBJECT_FRICTION).sqrt();
    // Contact impulses (normal, tangent), warm-started while the contact persists.
    let mut impulse: Option<(f64, f64)> = None;
    for t in 0..drive + 100 {
        // Forces: velocity control of the hand while it drives.
        if t < drive {
            let f = [hand_m * (target[0] - hand.v[0]) * FORCE_UNIT, hand_m * (target[1] - hand.v[1]) * FORCE_UNIT];
            let torque = hand_m * (0.0 - hand.w) * FORCE_UNIT;
            hand.v[0] += DT * hand.inv_m * f[0];
            hand.v[1] += DT * hand.inv_m * f[1];
            hand.w += DT * hand.inv_i * torque;
        }
        // Contact from the positions at the start of the step.
        let manifold = collide(&hand, &obj);
        if manifold.is_none() {
            impulse = None;
        }
        let mut contact = manifold.map(|(ln, lp)| {
            let n = rot(hand.a, ln);
            let plane = {
                let p = rot(hand.a, lp);
                [hand.c[0] + p[0], hand.c[1] + p[1]]
            };
            let clip = obj.c;
            let s = POLYGON_RADIUS - dot([clip[0] - plane[0], clip[1] - plane[1]], n);
            let ca = [clip[0] + s * n[0], clip[1] + s * n[1]];
            let cb = [clip[0] - OBJECT_RADIUS * n[0], clip[1] - OBJECT_RADIUS * n[1]];
            let point = [0.5 * (ca[0] + cb[0]), 0.5 * (ca[1] + cb[1])];
            let ra = [point[0] - hand.c[0], point[1] - hand.c[1]];
            let rb = [point[0] - obj.c[0], point[1] - obj.c[1]];
            let tangent = [n[1], -n[0]];
            let k = |dir: [f64; 2]| {
                let (a, b) = (cross(ra, dir), cross(rb, dir));
                1.0 / (hand.inv_m + obj.inv_m + hand.inv_i * a * a + obj.inv_i * b * b)
            };
            (ln, lp, n, tangent, ra, rb, k(n), k(tangent))
        });
        // Warm starting (the contact, then the joints, as b2Island::Solve).
        let (mut pn, mut pt) = impulse.unwrap_or((0.0, 0.0));
        if let Some((_, _, n, tg, ra, rb, _, _)) = contact {
            let p = [pn * n[0] + pt * tg[0], pn * n[1] + pt * tg[1]];
            hand.apply(-1.0, ra, p);
            obj.apply(1.0, rb, p);
        }
        for b in [&mut hand, &mut obj] {
            b.w += b.inv_i * b.ja;
            b.v[0] += b.inv_m * b.jp[0];
            b.v[1] += b.inv_m * b.jp[1];
        }
        for _ in 0..VELOCITY_ITERATIONS {
            hand.solve_joint();
            obj.solve_joint();
            if let Some((_, _, n, tg, ra, rb, mn, mt)) = contact {
                let rel = |h: &Body, o: &Body| {
                    let (va, vb) = (h.vel_at(ra), o.vel_at(rb));
                    [vb[0] - va[0], vb[1] - va[1]]
                };
                let lambda = -mt * dot(rel(&hand, &obj), tg);
                let max_f = friction * pn;
                let new = (pt + lambda).clamp(-max_f, max_f);
                let d = new - pt;
                pt = new;
                let p = [d * tg[0], d * tg[1]];
                hand.apply(-1.0, ra, p);
                obj.apply(1.0, rb, p);
                let lambda = -mn * dot(rel(&hand, &obj), n);
                let new = (pn + lambda).max(0.0);
                let d = new - pn;
                pn = new;
                let p = [d * n[0], d * n[1]];
                hand.apply(-1.0, ra, p);
                obj.apply(1.0, rb, p);
            }
        }
        impulse = contact.map(|_| (pn, pt));
        // Integrate positions (with Box2D's clamps).
        for b in [&mut hand, &mut obj] {
            let tr = [DT * b.v[0], DT * b.v[1]];
            let l2 = dot(tr, tr);
            if l2 > MAX_TRANSLATION * MAX_TRANSLATION {
                let s = MAX_TRANSLATION / l2.sqrt();
                b.v = [b.v[0] * s, b.v[1] * s];
            }
            if (DT * b.w).abs() > MAX_ROTATION {
                b.w *= MAX_ROTATION / (DT * b.w).abs();
            }
            b.c[0] += DT * b.v[0];
            b.c[1] += DT * b.v[1];
            b.a += DT * b.w;
        }
        // Position correction of the contact (b2ContactSolver::SolvePositionConstraints).
        if let Some(c) = contact.as_mut() {
            let (ln, lp) = (c.0, c.1);
            for _ in 0..POSITION_ITERATIONS {
                let n = rot(hand.a, ln);
                let plane = {
                    let p = rot(hand.a, lp);
                    [hand.c[0] + p[0], hand.c[1] + p[1]]
                };
                let point = obj.c;
                let sep = dot([point[0] - plane[0], point[1] - plane[1]], n) - POLYGON_RADIUS - OBJECT_RADIUS;
                let ra = [point[0] - hand.c[0], point[1] - hand.c[1]];
                let rb = [point[0] - obj.c[0], point[1] - obj.c[1]];
                let corr = (BAUMGARTE * (sep + LINEAR_SLOP)).clamp(-MAX_CORRECTION, 0.0);
                let (a, b) = (cross(ra, n), cross(rb, n));
                let k = hand.inv_m + obj.inv_m + hand.inv_i * a * a + obj.inv_i * b * b;
                let imp = if k > 0.0 { -corr / k } else { 0.0 };
                let p = [imp * n[0], imp * n[1]];
                hand.c[0] -= hand.inv_m * p[0];
                hand.c[1] -= hand.inv_m * p[1];
                hand.a -= hand.inv_i * cross(ra, p);
                obj.c[0] += obj.inv_m * p[0];
                obj.c[1] += obj.inv_m * p[1];
                obj.a += obj.inv_i * cross(rb, p);
                // Box2D stops once the separation before this correction was within 3 slops.
                if sep >= -3.0 * LINEAR_SLOP {
                    break;
                }
            }
        }
    }
    obj.c
}

/// The task as an objective: `f(rx, ry, steps, θ)` = distance from where the object comes to
/// rest to the goal. Non-finite inputs give `+inf`; inputs outside the domain are clamped to it
/// (the simulation is defined everywhere, but `steps` must stay a bounded count).
#[derive(Clone, Debug, PartialEq)]
pub struct RobotPush {
    goal: [f64; 2],
}

impl RobotPush {
    /// The task with its goal drawn uniformly from `[−5, 5]²` with `seed` (Wang & Jegelka draw
    /// `gpos = 10 rand(1, 2) − 5`).
    pub fn new(seed: u64) -> Self {
        use rand::RngExt;
        let mut rng = gradfree_core::rng_from_seed(gradfree_core::derive_seed(seed, 0x7075_7368));
        RobotPush { goal: [10.0 * rng.random::<f64>() - 5.0, 10.0 * rng.random::<f64>() - 5.0] }
    }

    /// The task with a given goal.
    pub fn with_goal(goal: [f64; 2]) -> Self {
        RobotPush { goal }
    }

    /// The goal.
    pub fn goal(&self) -> [f64; 2] {
        self.goal
    }

    /// The domain `[−5, 5]² × [1, 30] × [0, 2π]`.
    pub fn bounds() -> Bounds {
        Bounds::new(vec![-5.0, -5.0, 1.0, 0.0], vec![5.0, 5.0, 30.0, 2.0 * std::f64::consts::PI]).expect("valid box")
    }
}

impl Objective for RobotPush {
    fn eval(&self, x: &[f64]) -> f64 {
        if x.len() != 4 || x.iter().any(|v| !v.is_finite()) {
            return f64::INFINITY;
        }
        let b = Self::bounds();
        let c: Vec<f64> = x.iter().zip(b.lower().iter().zip(b.upper())).map(|(v, (l, u))| v.clamp(*l, *u)).collect();
        let p = push(c[0], c[1], c[2], c[3]);
        ((p[0] - self.goal[0]).powi(2) + (p[1] - self.goal[1]).powi(2)).sqrt()
    }

    fn dim(&self) -> Option<usize> {
        Some(4)
    }
}

impl crate::Problem for RobotPush {
    fn name(&self) -> &str {
        "robot-push"
    }
    fn dimension(&self) -> usize {
        4
    }
    fn formula(&self) -> &str {
        "|object position after pushing from (rx, ry) at angle theta for 10*steps time steps - goal|"
    }
    fn source(&self) -> &str {
        "Wang & Jegelka 2017; thesis sec. 4.7.4"
    }
    fn domain(&self) -> Option<Bounds> {
        Some(Self::bounds())
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        None
    }
    /// Unknown (0 if the goal can be reached exactly); Wang & Jegelka and the thesis report the
    /// distance itself as the regret.
    fn minimum(&self) -> Option<f64> {
        None
    }
}
