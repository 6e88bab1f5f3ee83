# Lends books to members and takes them back.
class LoanService
  def initialize
    @repository = BookRepository.new
  end

  def lend(book_id, member)
    book = @repository.find(book_id)
    loan = Loan.new(book, member)
    loan.touch
    loan
  end

  def give_back(book_id)
    Loan.new(@repository.find(book_id), nil).close
  end
end
