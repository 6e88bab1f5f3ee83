require_relative 'lending/policy'

# Lending rules shared by the app.
module Lending
  LOAN_DAYS = 21

  def self.overdue_count
    Policy.overdue.size
  end
end
