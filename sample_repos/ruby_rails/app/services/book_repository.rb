# Books kept in memory.
class BookRepository
  def initialize
    @books = {}
  end

  def all
    @books.values
  end

  def find(id)
    @books.fetch(id)
  end

  def save(book)
    @books[book.title] = book
  end
end
