# Catalogue operations over the book repository.
class Catalogue
  def initialize(repository)
    @repository = repository
  end

  def all_titles
    @repository.all.map(&:title)
  end

  def find(id)
    @repository.find(id)
  end

  def add(title, author)
    book = Book.new(title, author)
    @repository.save(book)
    book
  end

  def search(query)
    @repository.all.select { |book| book.matches?(query) }
  end
end
