/* Explicit Euler integration of particles under gravity and drag, bouncing off the floor y = 0. */
#include "../kernel.h"

/*@ file
type struct.Particle = { { float, float, float }, { float, float, float } }
*/

typedef struct { float x, y, z; } Vec3;
typedef struct { Vec3 pos; Vec3 vel; } Particle;

/*@ kernel integrate
family: kernel
desc: steps Euler steps of one particle: position and velocity loaded once from a struct-of-arrays Particle, updated in a loop with a uniform trip count, a divergent bounce branch (reflect and damp at the floor), stored back at the end.
param p: soa pointee=struct.Particle count=1 dir=inout init=random[-5,5] -- the particle (position, velocity)
param dt: uniform range=[0.001,0.05] -- time step
param steps: uniform range=[0,100] -- number of steps
returns: void
*/
void integrate(Particle *p, float dt, int steps) {
  Vec3 pos = p->pos, vel = p->vel;
  const float drag = 0.02f;
  for (int s = 0; s < steps; ++s) {
    vel.y -= 9.81f * dt;
    vel.x -= drag * vel.x * dt;
    vel.z -= drag * vel.z * dt;
    pos.x += vel.x * dt;
    pos.y += vel.y * dt;
    pos.z += vel.z * dt;
    if (pos.y < 0.0f) {
      pos.y = -pos.y;
      vel.y = -vel.y * 0.8f;
      vel.x *= 0.95f;
      vel.z *= 0.95f;
    }
  }
  p->pos = pos;
  p->vel = vel;
}
