#include "geo/shape.hpp"

namespace geo {

Shape::~Shape() = default;

std::string Shape::name() const { return "shape"; }

double Shape::scaled(double factor) const { return area() * factor; }

}  // namespace geo
