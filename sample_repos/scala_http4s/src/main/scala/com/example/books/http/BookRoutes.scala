package com.example.books.http

import cats.effect.IO
import com.example.books.service.BookService
import org.http4s.HttpRoutes
import org.http4s.dsl.io._

/** The HTTP routes of the catalogue. */
object BookRoutes {
  def routes(service: BookService): HttpRoutes[IO] = HttpRoutes.of[IO] {
    case GET -> Root / "books" / IntVar(id) =>
      Ok(service.describe(id))
    case req @ POST -> Root / "books" / title =>
      Ok(service.add(title).label())
    case GET -> Root / "health" =>
      Ok(Health.status())
  }
}

object Health {
  def status(): String = "ok"
}
