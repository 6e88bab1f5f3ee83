package com.example.books

import cats.effect.{IO, IOApp}
import com.example.books.http.BookRoutes
import com.example.books.repo.MemoryBookRepo
import com.example.books.service.AuditedBookService

/** Starts the catalogue server. */
object Main extends IOApp.Simple {
  def run: IO[Unit] = {
    val service = new AuditedBookService(new MemoryBookRepo())
    val app = BookRoutes.routes(service).orNotFound
    serve(app)
  }

  def serve(app: AnyRef): IO[Unit] = IO.unit
}
