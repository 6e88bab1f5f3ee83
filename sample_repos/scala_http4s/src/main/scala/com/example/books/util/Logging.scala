package com.example.books.util

/** Mixed into classes that report what they do. */
trait Logging {
  def log(message: String): Unit = println(message)
}
