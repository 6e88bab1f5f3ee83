#pragma once

#include <memory>
#include <vector>

#include "geo/shape.hpp"

namespace geo {

using std::unique_ptr;  // published as geo::unique_ptr

/// The shapes a registry owns.
using ShapeList = std::vector<unique_ptr<Shape>>;
typedef Shape* ShapeRef;

/// Owns shapes and remembers the largest one.
class Registry {
 public:
  void add(std::unique_ptr<Shape> shape);
  double total() const;

 private:
  ShapeList shapes_;
  ShapeRef largest_ = nullptr;
};

}  // namespace geo
