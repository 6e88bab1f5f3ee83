#include "geo/circle.hpp"

namespace geo {

namespace {
constexpr double kPi = 3.14159265358979;
}

Circle::Circle(double r) : r_(r) {}

double Circle::area() const { return kPi * r_ * r_; }

std::string Circle::name() const { return "circle, a " + Shape::name(); }

void Circle::grow(double by) { grow(by, 1); }

void Circle::grow(double by, int times) {
  for (int i = 0; i < times; ++i) {
    r_ += by;
  }
}

}  // namespace geo
