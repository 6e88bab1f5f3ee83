#pragma once

namespace geo {

/// Holds one value of any type.
template <typename T>
class Box {
 public:
  explicit Box(T value) : value_(value) {}
  const T& get() const { return value_; }

 private:
  T value_;
};

/// Twice the value: `x + x`.
template <typename T>
T twice(T x) {
  return x + x;
}

}  // namespace geo
