; @f has no body: nothing to packetize.
declare float @f(float)

define float @g(float %x) {
entry:
  %r = call float @f(float %x)
  ret float %r
}
