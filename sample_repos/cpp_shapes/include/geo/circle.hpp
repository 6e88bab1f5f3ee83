#pragma once

#include "geo/shape.hpp"

namespace geo {

/// A circle of radius `r`.
class Circle : public Shape {
 public:
  explicit Circle(double r);
  double area() const override;
  std::string name() const override;
  /// Grow the radius once, or `times` times.
  void grow(double by);
  void grow(double by, int times);

 private:
  double r_;
};

}  // namespace geo
