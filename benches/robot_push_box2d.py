#!/usr/bin/env python3
"""Reference values of the 4-d robot-pushing task from Box2D itself (pip install box2d), to compare
with gradfree's own rigid-body model (crates/problems/src/robot_push.rs).

  pip install box2d numpy
  python3 benches/robot_push_box2d.py

The scene follows Wang & Jegelka's push_world.py (Max-value Entropy Search, 2017): a static table,
a disc of radius 1 (density 0.05, friction 0.01) at the origin and a 0.6 x 2 hand (density 0.1,
friction 0.1), each held by a friction joint (max force 5 / 2, max torque 2); the hand is driven
towards the origin at speed 10 by the force m * 30 * (v* - v) for steps * 10 time steps of 1/100 s
(10 velocity and 10 position iterations), then 100 more steps. Deterministic: the original's
N(0, 0.1^2) velocity noise is left out. Prints one line per input: rx ry steps angle x y.
"""
import math

from Box2D import b2CircleShape, b2PolygonShape, b2Vec2, b2World

INPUTS = [
    (3.0, 0.5, 10.0, 0.3), (-2.0, 4.0, 20.0, 1.2), (1.5, -1.5, 5.0, 0.0), (-4.0, -3.0, 30.0, 2.5),
    (0.7, 2.2, 15.0, 4.0), (4.5, -4.5, 25.0, 5.5), (-1.0, 0.2, 3.0, 1.57), (2.5, 2.5, 8.0, 0.785),
]


def push(rx, ry, steps, angle):
    world = b2World(gravity=(0.0, 0.0), doSleep=True)
    base = world.CreateStaticBody(position=(0, 0), shapes=b2PolygonShape(box=(500, 500)))
    thing = world.CreateDynamicBody(position=(0, 0))
    thing.CreateFixture(shape=b2CircleShape(radius=1), density=0.05, friction=0.01)
    world.CreateFrictionJoint(bodyA=base, bodyB=thing, maxForce=5, maxTorque=2)
    hand = world.CreateDynamicBody(position=(rx, ry), angle=angle)
    hand.CreateFixture(shape=b2PolygonShape(box=(0.3, 1)), density=0.1, friction=0.1)
    world.CreateFrictionJoint(bodyA=base, bodyB=hand, maxForce=2, maxTorque=2)
    rx = rx if rx != 0 else 1e-21
    ry = ry if ry != 0 else 1e-21
    n = math.hypot(rx, ry)
    target = b2Vec2(-rx / n * 10, -ry / n * 10)
    drive = int(float(steps) * 10)
    for t in range(drive + 100):
        if t < drive:
            hand.ApplyTorque(hand.mass * (0 - hand.angularVelocity) * 30.0, wake=True)
            hand.ApplyForce(hand.mass * (target - hand.linearVelocity) * 30.0, hand.position, wake=True)
        world.Step(1.0 / 100, 10, 10)
    return thing.position


if __name__ == "__main__":
    for x in INPUTS:
        p = push(*x)
        print(*x, f"{p[0]:.6f}", f"{p[1]:.6f}")
