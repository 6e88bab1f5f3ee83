#pragma once

#include <memory>
#include <vector>

#include "geo/shape.hpp"

namespace geo {

/// Owns shapes and remembers the largest one.
class Registry {
 public:
  void add(std::unique_ptr<Shape> shape);
  double total() const;

 private:
  std::vector<std::unique_ptr<Shape>> shapes_;
  Shape* largest_ = nullptr;
};

}  // namespace geo
