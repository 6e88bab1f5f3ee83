#pragma once

#include <string>

namespace geo {

/// A plane figure: its area and a name to print.
class Shape {
 public:
  virtual ~Shape();
  /// Area in square units.
  virtual double area() const = 0;
  virtual std::string name() const;
  /// The area multiplied by `factor`.
  double scaled(double factor) const;
};

}  // namespace geo
