module Lending
  # How long a loan lasts and who may borrow.
  class Policy
    def self.due_date(loan)
      loan.book ? Time.now + LOAN_DAYS : nil
    end

    def self.check!(book_id)
      raise ArgumentError, 'no book' if book_id.nil?
    end

    def self.overdue
      []
    end
  end

  # A reminder of a late loan (its sending is added by the status app).
  class Reminder < Policy
    def self.text(loan)
      due_date(loan).to_s
    end
  end
end
