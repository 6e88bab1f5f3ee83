#include "geo/registry.hpp"

#include <utility>

namespace geo {

void Registry::add(std::unique_ptr<Shape> shape) {
  if (largest_ == nullptr || shape->area() > largest_->area()) {
    largest_ = shape.get();
  }
  shapes_.push_back(std::move(shape));
}

double Registry::total() const {
  double sum = 0;
  for (const auto& shape : shapes_) {
    sum += shape->area();
  }
  return largest_ != nullptr ? sum : 0.0;
}

}  // namespace geo
