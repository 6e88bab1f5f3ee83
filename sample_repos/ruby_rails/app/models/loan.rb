# A book lent to a member until a due date.
class Loan
  include Trackable
  attr_reader :book, :member

  def initialize(book, member)
    @book = book
    @member = member
  end

  def due_on
    Lending::Policy.due_date(self)
  end

  def close
    touch
  end
end
