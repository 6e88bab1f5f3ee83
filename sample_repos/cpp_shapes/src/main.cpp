#include <memory>
#include <string>

#include "geo/box.hpp"
#include "geo/circle.hpp"
#include "geo/registry.hpp"
#include "util/clog.h"

static void log_total(double total) {
  clog_line(std::to_string(total).c_str());
}

int main() {
  auto circle = std::make_unique<geo::Circle>(2.0);
  circle->grow(1.0);
  circle->grow(0.5, 2);
  geo::Shape* extra = new geo::Circle(1.0);
  clog_line(extra->name().c_str());
  geo::Registry registry;
  registry.add(std::move(circle));
  geo::Box<int> box(3);
  int doubled = geo::twice(box.get());
  log_total(registry.total() + doubled);
  delete extra;
  return 0;
}
