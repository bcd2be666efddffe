//! Our rigid-body model of the robot-pushing scene against Box2D 2.3 itself: final object
//! positions for eight inputs, as printed by `benches/robot_push_box2d.py` (pip `box2d` 2.3.10).

use gradfree_problems::robot_push::push;

/// `(rx, ry, steps, angle) -> (x, y)` from Box2D.
const BOX2D: [([f64; 4], [f64; 2]); 8] = [
    ([3.0, 0.5, 10.0, 0.3], [-7.040586, -1.741982]),
    ([-2.0, 4.0, 20.0, 1.2], [-0.266919, -3.070891]),
    ([1.5, -1.5, 5.0, 0.0], [-2.926436, 0.784724]),
    ([-4.0, -3.0, 30.0, 2.5], [17.895981, 13.422093]),
    ([0.7, 2.2, 15.0, 4.0], [-3.249361, -4.567782]),
    ([4.5, -4.5, 25.0, 5.5], [-11.707557, 11.707542]),
    ([-1.0, 0.2, 3.0, 1.57], [3.471161, -0.523690]),
    ([2.5, 2.5, 8.0, 0.785], [-3.731008, -3.731007]),
];

#[test]
fn final_positions_match_box2d() {
    for (x, want) in BOX2D {
        let got = push(x[0], x[1], x[2], x[3]);
        let err = ((got[0] - want[0]).powi(2) + (got[1] - want[1]).powi(2)).sqrt();
        // Box2D computes in float32: agreement to about 1e-5 of the distance travelled.
        assert!(err < 1e-3, "{x:?}: ours ({:.6}, {:.6}), Box2D ({:.6}, {:.6}), {err:.2e} apart", got[0], got[1], want[0], want[1]);
        eprintln!("{x:?}: {err:.2e}");
    }
}

#[test]
fn the_objective_is_the_distance_to_the_goal() {
    use gradfree_core::Objective;
    use gradfree_problems::Problem;
    use gradfree_problems::robot_push::RobotPush;
    let x = [3.0, 0.5, 10.0, 0.3];
    let p = push(x[0], x[1], x[2], x[3]);
    let task = RobotPush::with_goal([-7.0, -2.0]);
    let want = ((p[0] + 7.0).powi(2) + (p[1] + 2.0).powi(2)).sqrt();
    assert!((task.eval(&x) - want).abs() < 1e-12);
    assert_eq!(task.eval(&[f64::NAN, 0.0, 1.0, 0.0]), f64::INFINITY);
    let seeded = RobotPush::new(3);
    assert_eq!(seeded, RobotPush::new(3));
    assert!(seeded.goal().iter().all(|g| (-5.0..=5.0).contains(g)));
    assert_ne!(seeded.goal(), RobotPush::new(4).goal());
    assert_eq!(seeded.domain().unwrap().upper()[2], 30.0);
}
